// The generated CRM client (examples/client) in a few calls.
import { isSvcError } from '@svc/client'
import type { Api } from '../../../examples/client/index.js'

export async function pipeline (api: Api): Promise<string[]> {
  const company = await api.companies.create({ name: 'Acme', industry: 'software' })
  const deal = await api.deals.create(
    { title: 'Pilot', amount: 1200, companyId: company._id },
    { idempotencyKey: `pilot-${company._id}` }
  )
  // `include` adds the related record to the type: `big.company` is `CompaniesRecord | null`.
  const big = await api.deals.list({
    filter: { amount: { $gte: 1000 }, stage: { $in: ['prospecting', 'qualified'] } },
    sort: ['amount:desc'],
    include: ['company']
  })
  const names = big.results.map((d) => `${d.title} (${d.company?.name ?? 'no company'})`)
  // `deal.approval` is 'draft' here, so only 'submitted' type-checks as the next state.
  const submitted = await api.deals.transitionApproval(deal, 'submitted')
  try {
    await api.deals.transitionApproval(submitted._id, 'draft')
  } catch (err) {
    if (!isSvcError(err, 'INVALID_TRANSITION')) throw err
    names.push(
      `refused: ${err.details?.current ?? ''} → ${err.details?.attempted ?? ''} (allowed: ${err.details?.allowed.join(', ') ?? ''})`
    )
  }
  return names
}
