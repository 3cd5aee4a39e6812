import { Writable } from 'node:stream'
import t from 'tap'
import Fastify from 'fastify'
import { tokenUser } from '@svc/testkit'
import { createModel, svcAgent } from '../src/index.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, contactsSchema, cookieOf, startService } from './helper.js'

// A service started without AGENT_LEARNING serves none of the agent's schemas: every turn still
// answers, and the agent says once (one line, no stack) what is lost.

t.test('no conversation or learning schemas on the service', async (t) => {
  const svc = await startService(t, { schemas: [contactsSchema] })
  const model = await startScriptedModel('openai')
  t.teardown(model.close)
  const lines: any[] = []
  const stream = new Writable({
    write (chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    }
  })
  const agent = Fastify({ logger: { level: 'warn', stream } })
  const user = tokenUser(JWT_SECRET, { roles: ['agent'] })
  await agent.register(svcAgent, {
    svcUrl: svc.url,
    auth: { mode: 'service', bearer: user.headers.authorization.slice(7) },
    learning: true,
    cookieSecure: false,
    model: createModel({ provider: 'openai', url: model.url, model: 'scripted', retries: 0 })
  })
  t.teardown(async () => await agent.close())
  model.push({ toolCalls: [{ name: 'remember', args: { content: 'x' } }] }, { text: 'First.' })
  const first = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'one', stream: false } })
  t.equal(first.statusCode, 200)
  t.match(
    first.json().toolCalls[0].result,
    { error: { code: 'NOT_FOUND' } },
    'the learning tool reports the missing schema to the model'
  )
  model.push({ text: 'Second.' })
  const second = await agent.inject({
    method: 'POST',
    url: '/chat',
    headers: { cookie: cookieOf(first) },
    payload: { message: 'two', stream: false }
  })
  t.same(
    second.json().history.map((m: any) => m.content),
    ['two', 'Second.'],
    'the previous turn is not kept'
  )
  const warnings = lines.filter((l) => l.level === 40)
  t.same(
    warnings.map((w) => w.msg).sort(),
    [
      'the service serves no agentConversations schema (start it with AGENT_LEARNING=true): conversations are not kept, each turn starts without the previous ones',
      'learning is on, but the service serves no agentMemory, agentPersona, skills, customerProfiles (start it with AGENT_LEARNING=true): nothing is recalled and the learning tools fail',
      'the service serves no agentConversations schema (start it with AGENT_LEARNING=true): conversations are not kept: each turn starts without the previous ones',
      'the service serves no agentPersona schema (start it with AGENT_LEARNING=true): nothing is recalled into the prompt'
    ].sort(),
    'at start, then once per schema over two turns'
  )
  t.notOk(
    warnings.some((w) => w.err != null),
    'no stack traces'
  )
})

t.test('another persistence failure is logged with its cause and the turn still answers', async (t) => {
  const svc = await startService(t)
  const model = await startScriptedModel('openai')
  t.teardown(model.close)
  const lines: any[] = []
  const stream = new Writable({
    write (chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    }
  })
  const agent = Fastify({ logger: { level: 'warn', stream } })
  // A client id reads but may not write: the conversation is loaded, saving it is refused.
  await svc.db.collection('api_clients').insertOne({ _id: 'reader', role: 'public', createdAt: new Date() } as any)
  await agent.register(svcAgent, {
    svcUrl: svc.url,
    auth: { mode: 'service', clientId: 'reader' },
    cookieSecure: false,
    model: createModel({ provider: 'openai', url: model.url, model: 'scripted', retries: 0 })
  })
  t.teardown(async () => await agent.close())
  model.push({ text: 'Read-only.' })
  const res = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi', stream: false } })
  t.equal(res.statusCode, 200, res.body)
  t.match(
    lines.filter((l) => l.level === 40),
    [
      {
        msg: 'conversations are not kept: each turn starts without the previous ones',
        err: { message: /agentConversations: the service answered 40\d/ }
      }
    ]
  )
})
