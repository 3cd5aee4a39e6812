import t from 'tap'
import type { Identity } from '../src/index.js'
import { identityContext } from '../src/kit.js'
import { buildCoreApp, makeUser } from './helper.js'

t.test('identityContext: a verified caller without a request reads as that caller, and only its records', async (t) => {
  const app = await buildCoreApp(t)
  const alice = makeUser()
  const bob = makeUser()
  const contacts = app.svc.services.get('contacts')
  const who = (userId: string): Identity => ({ kind: 'user', userId, roles: ['user'] })
  {
    const ctx = identityContext(who(alice.userId), 'graphql', app.log)
    t.same(Object.keys(ctx).sort(), ['identity', 'log', 'surface'], 'no request, no request id')
    t.equal(ctx.log, app.log, 'the logger given')
    await contacts.create(ctx, { firstName: 'Ada', lastName: 'L', email: 'ada@example.com' })
  }
  {
    const ctx = identityContext(who(bob.userId), 'graphql')
    t.notOk('log' in ctx, 'no logger given: the service logs under its own name')
    const page = await contacts.list(ctx)
    t.equal(page.results.length, 0, "bob does not see alice's contact")
  }
  {
    const page = await contacts.list(identityContext(who(alice.userId), 'graphql'))
    t.same(
      page.results.map((r) => r.firstName),
      ['Ada'],
      'alice sees hers'
    )
  }
  await t.rejects(
    contacts.list(identityContext(null, 'graphql')),
    { code: 'UNAUTHENTICATED' },
    'no identity: refused like an anonymous request'
  )
})
