import type { FastifyInstance, LightMyRequestResponse } from 'fastify'

export interface Exchange {
  method: string
  path: string
  status: number
  body: unknown
  contentType: string
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n')

function multipart (name: string, type: string, data: Buffer): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----svc-docs-test'
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`
  return {
    payload: Buffer.concat([Buffer.from(head), data, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }
  }
}

/**
 * Calls every JSON route of the reference server once or more, as a client would, and returns
 * each exchange under the documented path template (`/api/v1/deals/{id}`).
 */
export async function exercise (app: FastifyInstance, firstMail: Promise<string>): Promise<Exchange[]> {
  const out: Exchange[] = []
  let bearer: Record<string, string> = {}
  const call = async (
    method: string,
    path: string,
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {}
  ): Promise<LightMyRequestResponse> => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: { ...bearer, ...headers },
      ...(payload !== undefined ? { payload: payload as string } : {})
    })
    const contentType = String(res.headers['content-type'] ?? '')
    out.push({
      method: method.toLowerCase(),
      path,
      status: res.statusCode,
      contentType,
      body: contentType.startsWith('application/json') ? res.json() : res.body
    })
    return res
  }
  const user = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.test', password: 'correct horse 1' }
  const registered = (await call('POST', '/register', '/register', user)).json()
  await call('POST', '/login', '/login', { email: user.email, password: user.password })
  const refreshed = (
    await call('POST', '/auth/refresh', '/auth/refresh', { refreshToken: registered.refreshToken })
  ).json()
  bearer = { authorization: `Bearer ${String(refreshed.accessToken)}` }
  await call('POST', '/auth/forgot-password', '/auth/forgot-password', { email: user.email })
  const token = /token=([A-Za-z0-9_-]+)/.exec(await firstMail)?.[1] ?? 'none'
  await call('POST', '/auth/reset-password', '/auth/reset-password', { token, password: 'correct horse 2' })
  bearer = {
    authorization: `Bearer ${String((await call('POST', '/login', '/login', { email: user.email, password: 'correct horse 2' })).json().accessToken)}`
  }

  await call('GET', '/_describe', '/_describe')
  await call('GET', '/healthz', '/healthz')
  const company = (await call('POST', '/api/v1/companies', '/api/v1/companies', { name: 'Acme' })).json()
  const contact = (
    await call(
      'POST',
      '/api/v1/contacts',
      '/api/v1/contacts',
      {
        firstName: 'Grace',
        lastName: 'Hopper',
        email: 'G@x.test',
        companyId: company._id,
        birthday: '1906-12-09',
        tags: ['navy'],
        address: { city: 'NYC' },
        customFields: { a: [1, null] }
      },
      { 'idempotency-key': 'contact-1' }
    )
  ).json()
  await call(
    'POST',
    '/api/v1/contacts',
    '/api/v1/contacts',
    { firstName: 'Grace', lastName: 'Hopper', email: 'G@x.test' },
    { 'idempotency-key': 'contact-1' }
  )
  const deal = (
    await call('POST', '/api/v1/deals', '/api/v1/deals', {
      title: 'Big',
      amount: 50,
      closeDate: '2024-05-01T09:30:00Z',
      companyId: company._id,
      contactId: contact._id,
      lineItems: [{ sku: 'a', unitPrice: 2 }]
    })
  ).json()
  const others: Array<[string, string]> = []
  for (const [path, body] of [
    ['products', { name: 'Widget', price: 3 }],
    ['tasks', { title: 'Call', dealId: deal._id }],
    ['notes', { title: 'n' }]
  ] as const) {
    const created = (await call('POST', `/api/v1/${path}`, `/api/v1/${path}`, body)).json()
    others.push([path, String(created._id)])
    await call('GET', `/api/v1/${path}/{id}`, `/api/v1/${path}/${String(created._id)}`)
  }
  for (const path of ['companies', 'contacts', 'deals', 'products', 'tasks', 'notes']) {
    await call('GET', `/api/v1/${path}`, `/api/v1/${path}?__perPage=1`)
    await call('GET', `/api/v1/${path}-schema`, `/api/v1/${path}-schema`)
  }
  await call('GET', '/api/v1/deals', '/api/v1/deals', undefined)
  await call('GET', '/api/v1/deals', `/api/v1/deals?amount=${encodeURIComponent('{"$lt":100}')}&__sort=amount:desc`)
  await call('PUT', '/api/v1/deals', '/api/v1/deals', {
    filter: { amount: { $lt: 100 } },
    record: { probability: 0.5 }
  })
  await call('PUT', '/api/v1/deals', '/api/v1/deals', {
    filter: { title: 'Upserted', amount: 7 },
    record: { stage: 'qualified' }
  })
  await call(
    'GET',
    '/api/v1/deals/aggregations/{name}',
    '/api/v1/deals/aggregations/byStage?minAmount=10&closingAfter=2024-01-01'
  )
  await call('GET', '/api/v1/deals/{id}', `/api/v1/deals/${String(deal._id)}?__include=company,contact`)
  await call('PUT', '/api/v1/deals/{id}', `/api/v1/deals/${String(deal._id)}`, {
    probability: null,
    currency: null,
    stage: 'qualified'
  })
  await call('PUT', '/api/v1/contacts/{id}', `/api/v1/contacts/${String(contact._id)}`, {
    phone: '+1 555',
    birthday: null
  })
  await call('GET', '/api/v1/contacts/{id}', `/api/v1/contacts/${String(contact._id)}`)

  const pdf = multipart('c.pdf', 'application/pdf', PDF)
  await call(
    'POST',
    '/api/v1/deals/{id}/contract',
    `/api/v1/deals/${String(deal._id)}/contract`,
    pdf.payload,
    pdf.headers
  )
  await call('GET', '/api/v1/deals/{id}/contract', `/api/v1/deals/${String(deal._id)}/contract`)
  await call('DELETE', '/api/v1/deals/{id}/contract', `/api/v1/deals/${String(deal._id)}/contract`)
  const png = multipart('a.png', 'image/png', PNG)
  await call(
    'POST',
    '/api/v1/contacts/{id}/avatar',
    `/api/v1/contacts/${String(contact._id)}/avatar`,
    png.payload,
    png.headers
  )
  await call('GET', '/api/v1/contacts/{id}/avatar', `/api/v1/contacts/${String(contact._id)}/avatar`)
  await call('GET', '/api/v1/contacts/{id}', `/api/v1/contacts/${String(contact._id)}`)
  await call('DELETE', '/api/v1/contacts/{id}/avatar', `/api/v1/contacts/${String(contact._id)}/avatar`)

  await call('PUT', '/api/v1/companies/{id}', `/api/v1/companies/${String(company._id)}`, { employees: 12, tags: null })
  for (const [path, id] of [
    ['deals', deal._id],
    ['contacts', contact._id],
    ['companies', company._id]
  ] as const) {
    await call('DELETE', `/api/v1/${path}/{id}`, `/api/v1/${path}/${String(id)}`)
    await call('GET', `/api/v1/${path}/{id}`, `/api/v1/${path}/${String(id)}?__includeDeleted=true`)
    await call('POST', `/api/v1/${path}/{id}/restore`, `/api/v1/${path}/${String(id)}/restore`)
    await call('GET', `/api/v1/${path}/{id}/history`, `/api/v1/${path}/${String(id)}/history?__perPage=5`)
  }
  for (const [path, id] of others) {
    const first = { _id: id }
    await call('PUT', `/api/v1/${path}/{id}`, `/api/v1/${path}/${String(first._id)}`, {})
    await call('DELETE', `/api/v1/${path}/{id}`, `/api/v1/${path}/${String(first._id)}`)
    await call('POST', `/api/v1/${path}/{id}/restore`, `/api/v1/${path}/${String(first._id)}/restore`)
    await call('GET', `/api/v1/${path}/{id}/history`, `/api/v1/${path}/${String(first._id)}/history`)
  }
  for (const path of ['companies', 'contacts', 'products', 'tasks', 'notes']) {
    await call('PUT', `/api/v1/${path}`, `/api/v1/${path}`, { filter: { _id: 'nothing' }, record: {} })
  }

  const hook = (
    await call('POST', '/api/v1/webhooks', '/api/v1/webhooks', { events: ['deals.*'], url: 'http://127.0.0.1:9/hook' })
  ).json()
  await call('GET', '/api/v1/webhooks', '/api/v1/webhooks')
  await call('GET', '/api/v1/webhooks/{id}', `/api/v1/webhooks/${String(hook._id)}`)
  await call('PATCH', '/api/v1/webhooks/{id}', `/api/v1/webhooks/${String(hook._id)}`, { active: true })
  await call('POST', '/api/v1/webhooks/{id}/test', `/api/v1/webhooks/${String(hook._id)}/test`)
  await call('GET', '/api/v1/webhooks/{id}/deliveries', `/api/v1/webhooks/${String(hook._id)}/deliveries`)
  await call('DELETE', '/api/v1/webhooks/{id}', `/api/v1/webhooks/${String(hook._id)}`)
  await call('POST', '/api/v1/_events/tickets', '/api/v1/_events/tickets')
  await call('GET', '/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource')
  await call('GET', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource/mcp')
  // Failures answer the documented error envelope.
  await call('GET', '/api/v1/deals/{id}', '/api/v1/deals/65f000000000000000000009')
  await call('PUT', '/api/v1/deals', '/api/v1/deals', { filter: {}, record: { nope: 1 } })
  return out
}
