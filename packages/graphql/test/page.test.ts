import t from 'tap'
import { buildApp, fails, makeUser, ok, restCreate } from './helper.js'

// CONTRACT "Lists: cursors and counts" on GraphQL: <path>Page answers the REST list envelope.

const { app } = await buildApp(t)
const alice = makeUser()
const bob = makeUser()
for (let i = 0; i < 5; i++) await restCreate(app, alice, 'contacts', { firstName: `P${i}`, lastName: 'Page', score: i })
await restCreate(app, bob, 'contacts', { firstName: 'Bob', lastName: 'Other', score: 1 })

const PAGE =
  'query ($cursor: String, $count: Boolean) { contactsPage(sort: [score_ASC], perPage: 2, cursor: $cursor, count: $count) { results { firstName } totalResults totalPages page nextPage prevPage nextCursor } }'

t.test("<path>Page walks by cursor, counted or not, in the caller's tenant", async (t) => {
  const first = (await ok(app, alice.headers, PAGE, { count: false })).contactsPage
  t.match(first, { totalResults: null, totalPages: null, page: 1, nextPage: 2, prevPage: null })
  const names = first.results.map((r: any) => r.firstName)
  let cursor: string | null = first.nextCursor
  while (cursor !== null) {
    const page = (await ok(app, alice.headers, PAGE, { cursor })).contactsPage
    t.equal(page.totalResults, 5)
    names.push(...page.results.map((r: any) => r.firstName))
    cursor = page.nextCursor
  }
  t.same(names, ['P0', 'P1', 'P2', 'P3', 'P4'])
  const paged = (
    await ok(
      app,
      alice.headers,
      '{ contactsPage(perPage: 2, page: 3) { results { firstName } page totalPages nextCursor } }'
    )
  ).contactsPage
  t.match(paged, { page: 3, totalPages: 3, nextCursor: null })
})

t.test('<path>Page refuses a cursor altered, of another query or of another tenant', async (t) => {
  const { nextCursor } = (await ok(app, alice.headers, PAGE, {})).contactsPage
  t.equal((await fails(app, alice.headers, PAGE, { cursor: nextCursor.slice(0, -1) })).code, 'VALIDATION', 'altered')
  t.equal(
    (await fails(app, alice.headers, '{ contactsPage(perPage: 3, cursor: "' + nextCursor + '") { page } }')).code,
    'VALIDATION',
    'another query'
  )
  const foreign = await fails(app, bob.headers, PAGE, { cursor: nextCursor })
  t.equal(foreign.code, 'VALIDATION', "another tenant's cursor")
  t.same(foreign.data, null, 'no records')
})
