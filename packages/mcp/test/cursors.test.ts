import t from 'tap'
import { buildApp, connect, fails, makeUser, ok } from './helper.js'

// CONTRACT "Lists: cursors and counts" on MCP: list tools answer nextCursor, take cursor and count.

t.test('list_<path>: a walk by cursor, count: false, refusals and tenants', async (t) => {
  const { url } = await buildApp(t)
  const alice = makeUser()
  const client = await connect(t, url, alice.headers)
  for (let i = 0; i < 5; i++) {
    await ok(client, 'create_contacts', { record: { firstName: `C${i}`, lastName: 'Walk', score: i } })
  }
  const first = await ok(client, 'list_contacts', { sort: 'score:asc', perPage: 2, count: false })
  t.match(first, { totalResults: null, totalPages: null, page: 1, nextPage: 2, nextCursor: String })
  const names = first.results.map((r: any) => r.firstName)
  let cursor: string | null = first.nextCursor
  while (cursor !== null) {
    const page = await ok(client, 'list_contacts', { sort: 'score:asc', perPage: 2, cursor })
    t.equal(page.totalResults, 5, 'counted unless count is false')
    names.push(...page.results.map((r: any) => r.firstName))
    cursor = page.nextCursor
  }
  t.same(names, ['C0', 'C1', 'C2', 'C3', 'C4'], 'every record once, in order')
  const found = (await client.callTool({
    name: 'search_contacts',
    arguments: { q: 'walk', perPage: 2, count: false }
  })) as any
  t.match(found.structuredContent, { totalResults: null, totalPages: null, nextCursor: String })
  t.match(found.content[0].text, /^2 contacts match "walk" \(page 1\)/, 'the summary says no total')
  const rest = await ok(client, 'search_contacts', {
    q: 'walk',
    perPage: 2,
    cursor: found.structuredContent.nextCursor
  })
  t.equal(rest.results.length, 2, 'a search continues by cursor too')
  t.match(
    await fails(client, 'list_contacts', { sort: 'score:desc', perPage: 2, cursor: first.nextCursor }),
    { code: 'VALIDATION' },
    'another sort'
  )
  t.match(
    await fails(client, 'list_contacts', { sort: 'score:asc', perPage: 2, cursor: first.nextCursor + 'x' }),
    { code: 'VALIDATION' },
    'altered'
  )
  const mallory = await connect(t, url, makeUser().headers)
  t.match(
    await fails(mallory, 'list_contacts', { sort: 'score:asc', perPage: 2, cursor: first.nextCursor }),
    { code: 'VALIDATION' },
    "another tenant's cursor"
  )
})

t.test('list_<path>_<rel>: related lists walk by cursor too', async (t) => {
  const { url } = await buildApp(t)
  const client = await connect(t, url, makeUser().headers)
  const acme = await ok(client, 'create_companies', { record: { name: 'Acme' } })
  for (let i = 0; i < 3; i++) {
    await ok(client, 'create_contacts', { record: { firstName: `R${i}`, lastName: 'Rel', companyId: acme._id } })
  }
  const first = await ok(client, 'list_companies_contacts', { id: acme._id, perPage: 2, sort: 'firstName:asc' })
  t.equal(first.results.length, 2)
  const second = await ok(client, 'list_companies_contacts', {
    id: acme._id,
    perPage: 2,
    sort: 'firstName:asc',
    cursor: first.nextCursor,
    count: false
  })
  t.same(
    second.results.map((r: any) => r.firstName),
    ['R2']
  )
  t.match(second, { nextCursor: null, totalResults: null, page: 2 })
})
