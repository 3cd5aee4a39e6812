// Type-level tests: a client generated for the CRM and the extra schemas is compiled with the
// TypeScript compiler (what `tsc --noEmit` runs) together with one file that must compile and
// one file per misuse that must not, each failing on its own line with the expected message.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'
import { generateClient, type DescribeDocument } from '../src/generate/index.js'
import { crm, extra } from './fixtures/schemas.js'
import { startServer } from './helper.js'

const HEAD =
  "import { createClient } from './index.js'\nconst api = createClient({ baseUrl: 'http://127.0.0.1:3000' })\nexport async function f (id: string): Promise<unknown> {\n"

// Each body must fail on its line (the first of the body) with a message matching `error`.
const MUST_FAIL: Array<{ name: string; body: string; error: RegExp }> = [
  {
    name: 'a wrong field name in a filter',
    body: 'return await api.deals.list({ filter: { amout: 1 } })',
    error: /'amout' does not exist in type 'DealsFilter'/
  },
  {
    name: 'an operator the field type does not allow',
    body: "return await api.deals.list({ filter: { amount: { $regex: '^1' } } })",
    error: /'\$regex' does not exist in type 'NumberOps'/
  },
  {
    name: 'an operator outside the allow-list',
    body: "return await api.contacts.list({ filter: { email: { $where: 'x' } } })",
    error: /'\$where' does not exist in type 'StringOps'/
  },
  {
    name: 'restore on a schema without soft delete',
    body: 'return await api.logs.restore(id)',
    error: /Property 'restore' does not exist on type 'LogsClient'/
  },
  {
    name: 'history on a schema without audit',
    body: 'return await api.logs.history(id)',
    error: /Property 'history' does not exist on type 'LogsClient'/
  },
  {
    name: 'a value outside an enum',
    body: "return await api.deals.list({ filter: { stage: 'wonn' } })",
    error: /'"wonn"' is not assignable/
  },
  {
    name: 'an unknown sort key',
    body: "return await api.deals.list({ sort: ['amout:desc'] })",
    error: /'"amout:desc"' is not assignable to type 'SortSpec<DealsSortKey>'/
  },
  {
    name: 'an unknown relation in include',
    body: "return await api.deals.get(id, { include: ['compnay'] })",
    error: /'"compnay"' is not assignable/
  },
  {
    name: 'a relation that was not included',
    body: 'return (await api.deals.get(id)).company',
    error: /Property 'company' does not exist/
  },
  {
    name: 'an illegal move from a narrowed state',
    body: "const d = await api.deals.get(id); if (d.approval === 'draft') await api.deals.transitionApproval(d, 'approved'); return d",
    error: /'"approved"' is not assignable to parameter of type '"submitted"'/
  },
  {
    name: 'an illegal move from the state create answers',
    body: "return await api.deals.transitionApproval(await api.deals.create({ title: 't', amount: 1 }), 'rejected')",
    error: /'"rejected"' is not assignable to parameter of type '"submitted"'/
  },
  {
    name: 'a move from a final state',
    body: "const d = await api.deals.get(id); if (d.approval === 'approved') await api.deals.transitionApproval(d, 'draft'); return d",
    error: /'"draft"' is not assignable to parameter of type 'never'/
  },
  {
    name: 'a state outside the machine, by id',
    body: "return await api.supportTickets.transitionReview(id, 'maybe')",
    error: /'"maybe"' is not assignable/
  },
  {
    name: 'a computed field in a create',
    body: "return await api.contacts.create({ firstName: 'a', lastName: 'b', email: 'c@d.e', fullName: 'x' })",
    error: /'fullName' does not exist in type 'ContactsCreate'/
  },
  {
    name: 'a file field in an update',
    body: 'return await api.contacts.update(id, { avatar: null })',
    error: /'avatar' does not exist in type 'ContactsUpdate'/
  },
  {
    name: 'a missing required field',
    body: "return await api.deals.create({ title: 't' })",
    error: /Property 'amount' is missing/
  },
  {
    name: 'null on a required field',
    body: 'return await api.deals.update(id, { title: null })',
    error: /'null' is not assignable to type 'string/
  },
  {
    name: 'a file method of a schema without that file',
    body: 'return await api.tasks.uploadAvatar(id, new Blob([]))',
    error: /Property 'uploadAvatar' does not exist on type 'TasksClient'/
  },
  {
    name: 'an unknown aggregation parameter',
    body: 'return await api.deals.aggregations.byStage({ minAmout: 1 })',
    error: /'minAmout' does not exist/
  },
  {
    name: 'a required aggregation parameter left out',
    body: 'return await api.specimens.aggregations.byGrade({})',
    error: /Property 'since' is missing/
  },
  {
    name: 'a number outside a numeric enum',
    body: 'return await api.specimens.create({ grade: 5 })',
    error: /Type '5' is not assignable to type '1 \| 2 \| 3 \| undefined'/
  },
  {
    name: 'a nested path that does not exist',
    body: "return await api.specimens.list({ filter: { 'parts.size.corners': 4 } })",
    error: /'parts\.size\.corners'' does not exist in type 'SpecimensFilter'/
  },
  {
    name: 'deletedAt on a schema without soft delete',
    body: "return await api.logs.list({ filter: { deletedAt: { $gte: '1970-01-01' } } })",
    error: /'deletedAt' does not exist in type 'LogsFilter'/
  },
  {
    name: 'a create asking for a later state',
    body: "return await api.deals.create({ title: 't', amount: 1, approval: 'approved' })",
    error: /'"approved"' is not assignable to type '"draft"'/
  }
]

const MUST_COMPILE = `${HEAD}  type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
  const yes = <T extends true>(_: T): void => {}
  const deal = await api.deals.get(id, { include: ['company', 'tasks'] })
  yes<Equal<typeof deal.company, import('./index.js').CompaniesRecord | null>>(true)
  yes<Equal<typeof deal.tasks, Array<import('./index.js').TasksRecord>>>(true)
  const created = await api.deals.create({ title: 't', amount: 1, closeDate: new Date() }, { idempotencyKey: 'k' })
  yes<Equal<typeof created.approval, 'draft'>>(true)
  yes<Equal<typeof created.availableTransitions, Array<'submitted'>>>(true)
  const submitted = await api.deals.transitionApproval(created, 'submitted')
  if (submitted.approval === 'submitted') await api.deals.transitionApproval(submitted, 'rejected')
  await api.deals.transitionApproval(id, 'approved')
  const c = await api.contacts.get(id)
  yes<Equal<typeof c.internalNotes, string | undefined>>(true) // read ACL: maybe stripped
  yes<Equal<typeof c.email, string>>(true)
  await api.contacts.list({ filter: { 'address.city': { $regex: '^Par', $options: 'i' }, tags: 'vip', score: { $gte: 1, $in: [1, 2] }, createdAt: { $gt: new Date() }, _id: { $in: [id] } }, sort: ['score:desc', 'lastName'], include: ['company'], perPage: 5 })
  await api.deals.list({ filter: { 'lineItems.sku': 'A-1', stage: { $in: ['won', 'lost'] }, approval: 'draft' } })
  await api.deals.list({ includeDeleted: true, filter: { deletedAt: { $gte: new Date(0) } }, sort: 'deletedAt:desc' }) // a trash
  await api.deals.bulkUpdate({ stage: 'lost' }, { probability: null })
  const meta = await api.contacts.uploadAvatar(id, new Blob([]), { filename: 'a.png' })
  const link = await api.deals.fetchContractUrl(id)
  yes<Equal<typeof link.url, string>>(true)
  await api.deals.aggregations.byStage({ minAmount: 1, closingAfter: new Date() })
  await api.articles.search('launch', { filter: { published: true } })
  const ticket = await api.supportTickets.create({ subject: 's' })
  yes<Equal<typeof ticket.status, 'open'>>(true)
  await api.supportTickets.transitionStatus(ticket, 'closed')
  await api.supportTickets.transitionReview(ticket, 'requested')
  await api.logs.delete(id)
  const sp = await api.specimens.get(id, { include: ['twin', 'owner'] })
  yes<Equal<typeof sp.twin, import('./index.js').SpecimensRecord | null>>(true)
  yes<Equal<typeof sp.owner, import('./index.js').LogsRecord | null>>(true)
  yes<Equal<typeof sp.phase, 'new' | 'old' | undefined>>(true) // a state field with a read ACL
  await api.specimens.create({ grade: 3, seenAt: [new Date()], geo: { point: { lat: 1 } }, parts: [{ name: 'p', size: { sides: 3 } }] })
  await api.specimens.list({ filter: { 'parts.size.sides': { $gte: 1 }, seenAt: { $lt: new Date() }, flags: true } })
  await api.specimens.aggregations.byGrade({ since: new Date(), flag: false })
  const h = await api.deals.history(id, { perPage: 5 })
  return [meta, h.results[0]?.before?.title]
}
`

t.test('the generated client compiles, and every misuse fails on its line', async (t) => {
  const server = await startServer(t, [...crm, ...extra])
  const dir = fileURLToPath(new URL(`.gen/types-${process.pid}/`, import.meta.url))
  mkdirSync(dir, { recursive: true })
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'index.ts'), generateClient(server.describe as DescribeDocument)['index.ts'])
  writeFileSync(join(dir, 'valid.ts'), MUST_COMPILE)
  MUST_FAIL.forEach((c, i) => writeFileSync(join(dir, `fail-${i}.ts`), `${HEAD}  ${c.body}\n}\n`))

  const config = ts.getParsedCommandLineOfConfigFile(
    fileURLToPath(new URL('../tsconfig.json', import.meta.url)),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} }
  )
  if (config == null) throw new Error('tsconfig.json did not parse')
  const roots = ['index.ts', 'valid.ts', ...MUST_FAIL.map((_c, i) => `fail-${i}.ts`)].map((f) => join(dir, f))
  // The snippets take an `id` some of them leave unused: only the client's types are under test.
  const program = ts.createProgram(roots, {
    ...config.options,
    noEmit: true,
    noUnusedLocals: false,
    noUnusedParameters: false
  })
  const messages = (file: string): Array<{ line: number; text: string }> =>
    ts.getPreEmitDiagnostics(program, program.getSourceFile(join(dir, file))).map((d) => ({
      line: d.file !== undefined && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
      text: ts.flattenDiagnosticMessageText(d.messageText, '\n')
    }))

  t.same(messages('index.ts'), [], 'the generated file compiles')
  t.same(messages('valid.ts'), [], 'correct uses compile, with the types asserted')
  MUST_FAIL.forEach((c, i) => {
    const found = messages(`fail-${i}.ts`)
    t.ok(
      found.length > 0 && found.every((m) => m.line === 4),
      `${c.name}: fails on its line (${JSON.stringify(found)})`
    )
    t.ok(
      found.some((m) => c.error.test(m.text)),
      `${c.name}: ${c.error} (${found.map((m) => m.text).join(' | ')})`
    )
  })
})
