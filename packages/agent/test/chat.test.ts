import t from 'tap'
import { signToken, tokenUser } from '@svc/testkit'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, cookieOf, createRecord, parseSse, sequence, startAgent, startService } from './helper.js'

const svc = await startService(t)
const model = await startScriptedModel('openai')
t.teardown(model.close)
const alice = tokenUser(JWT_SECRET)
const bob = tokenUser(JWT_SECRET)
await createRecord(svc, alice.headers, 'contacts', { name: 'Ada', status: 'customer' })
await createRecord(svc, alice.headers, 'contacts', { name: 'Grace', status: 'lead' })
await createRecord(svc, bob.headers, 'contacts', { name: 'Bob-only', status: 'customer' })
const aliceBearer = alice.headers.authorization.slice(7)
const agent = await startAgent(t, model, { svcUrl: svc.url, auth: { mode: 'service', bearer: aliceBearer } })

t.test('SSE: tool call, tool result, tokens, render, final, done — in order', async (t) => {
  model.push(
    { text: 'Let me look.', toolCalls: [{ name: 'list_contacts', args: { perPage: 10 } }] },
    {
      toolCalls: [
        {
          name: 'render_table',
          args: {
            columns: ['name', 'status'],
            rows: [
              ['Ada', 'customer'],
              ['Grace', 'lead']
            ]
          }
        }
      ]
    },
    { text: 'You have two contacts.' }
  )
  const res = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'Who are my contacts?' } })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/event-stream/)
  t.match(
    res.headers['set-cookie'],
    /svc_agent_session=.+; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax/,
    'a session cookie for the conversation'
  )
  const events = parseSse(res.body)
  t.same(sequence(events), [
    'token',
    'tool_call',
    'tool_result',
    'tool_call',
    'tool_result',
    'render',
    'token',
    'final',
    'done'
  ])
  for (const e of events) t.equal(e.data.type, e.event, `data.type of ${e.event}`)
  const listed = events.find((e) => e.event === 'tool_result')?.data
  t.same(
    listed.result.results.map((r: any) => r.name).sort(),
    ['Ada', 'Grace'],
    "the bearer's own contacts, never Bob's"
  )
  t.same(events.find((e) => e.event === 'tool_call')?.data, {
    type: 'tool_call',
    name: 'list_contacts',
    args: { perPage: 10 }
  })
  t.same(events.find((e) => e.event === 'render')?.data.payload, {
    type: 'table',
    columns: ['name', 'status'],
    rows: [
      ['Ada', 'customer'],
      ['Grace', 'lead']
    ]
  })
  const final = events.find((e) => e.event === 'final')?.data
  t.equal(final.text, 'Let me look.\n\nYou have two contacts.')
  t.equal(
    events
      .filter((e) => e.event === 'token')
      .map((e) => e.data.text)
      .join(''),
    final.text,
    'tokens add up to the final text'
  )
  t.same(final.history, [
    { role: 'user', content: 'Who are my contacts?' },
    { role: 'assistant', content: final.text }
  ])
  t.same(events.at(-1)?.data, { type: 'done', ok: true })
  // The model saw the MCP tools under their own names plus the render tools, never the agent's own schema.
  const names = model.requests.at(-1).tools.map((x: any) => x.function.name)
  t.ok(
    names.includes('list_contacts') &&
      names.includes('render_table') &&
      names.includes('render_chart') &&
      names.includes('list_resources')
  )
  t.notOk(
    names.some((n: string) => n.includes('agentConversations')),
    'conversation tools hidden'
  )
})

t.test('JSON mode and persisted history across turns and agent restarts', async (t) => {
  model.push({ text: 'Hello!' })
  const first = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi', stream: false } })
  t.equal(first.statusCode, 200)
  t.same(first.json(), {
    text: 'Hello!',
    history: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Hello!' }
    ],
    toolCalls: [],
    renders: []
  })
  const cookie = cookieOf(first)

  const restarted = await startAgent(t, model, { svcUrl: svc.url, auth: { mode: 'service', bearer: aliceBearer } })
  model.push({ text: 'Again.' })
  const second = await restarted.inject({
    method: 'POST',
    url: '/chat',
    headers: { cookie },
    payload: { message: 'and now?', stream: false, channelUserId: 'someone-else' }
  })
  t.equal(second.statusCode, 200)
  t.notOk(second.headers['set-cookie'], 'a valid session is kept')
  t.same(
    second.json().history.map((m: any) => m.content),
    ['hi', 'Hello!', 'and now?', 'Again.'],
    'history survived the restart; the body channelUserId was ignored'
  )
  t.same(
    model.requests
      .at(-1)
      .messages.slice(1)
      .map((m: any) => m.content),
    ['hi', 'Hello!', 'and now?'],
    'the model saw the history'
  )

  const stored = await svc.app.inject({ method: 'GET', url: '/api/v1/agentConversations', headers: alice.headers })
  t.ok(
    stored.json().results.some((r: any) => r.messages.length === 4),
    "stored in the service, owned by the bearer's user"
  )
  const others = await svc.app.inject({ method: 'GET', url: '/api/v1/agentConversations', headers: bob.headers })
  t.equal(others.json().results.length, 0, 'another tenant sees none of it')
})

t.test('tool errors reach the model and the turn goes on', async (t) => {
  model.push(
    {
      toolCalls: [
        { name: 'get_contacts', args: { id: '0123456789abcdef01234567' } },
        { name: 'drop_database', args: {} },
        { name: 'render_chart', args: { spec: { mark: 'bar', data: { url: 'http://evil.test/x.json' } } } }
      ]
    },
    { text: 'Not found.' }
  )
  const res = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'get it' } })
  const results = parseSse(res.body)
    .filter((e) => e.event === 'tool_result')
    .map((e) => e.data)
  t.match(results[0], { name: 'get_contacts', isError: true, result: { error: { code: 'NOT_FOUND' } } })
  t.match(results[1], {
    name: 'drop_database',
    isError: true,
    result: { error: { code: 'NOT_FOUND', message: 'no tool named drop_database' } }
  })
  t.match(results[2], {
    name: 'render_chart',
    isError: true,
    result: { error: { code: 'VALIDATION', message: /inline/ } }
  })
  const toolMessages = model.requests.at(-1).messages.filter((m: any) => m.role === 'tool')
  t.equal(toolMessages.length, 3)
  t.match(toolMessages[0].content, /NOT_FOUND/)
  t.same(parseSse(res.body).at(-1)?.data, { type: 'done', ok: true })
})

t.test('a chart renders', async (t) => {
  const spec = {
    mark: 'bar',
    data: {
      values: [
        { s: 'lead', n: 1 },
        { s: 'customer', n: 1 }
      ]
    },
    encoding: { x: { field: 's' }, y: { field: 'n', type: 'quantitative' } }
  }
  model.push({ toolCalls: [{ name: 'render_chart', args: { spec } }] }, { text: 'Chart above.' })
  const res = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'chart', stream: false } })
  t.same(res.json().renders, [{ type: 'chart', spec }])
  t.same(res.json().toolCalls[0], { name: 'render_chart', args: { spec }, result: { rendered: 'chart' } })
})

t.test('a chart may not reconfigure, link or fetch: the spec is checked against an allowlist', async (t) => {
  const values = [{ s: 'a', n: 1 }]
  const bad = [
    [
      {
        mark: 'bar',
        data: { values },
        usermeta: { embedOptions: { actions: true, editorUrl: 'https://evil.example' } }
      },
      /spec.usermeta is not/
    ],
    [{ mark: 'bar', data: { values }, encoding: { href: { field: 's' } } }, /href is not allowed/],
    [{ mark: { type: 'bar', href: 'https://evil.example' }, data: { values } }, /href/],
    [
      { mark: 'image', data: { values }, encoding: { url: { value: 'https://evil.example/x.png' } } },
      /url is not allowed/
    ],
    [{ mark: 'bar', data: { values }, params: [{ name: 'p', bind: { input: 'range' } }] }, /bind is not allowed/],
    [
      { $schema: 'https://vega.github.io/schema/vega/v5.json', mark: 'bar', data: { values } },
      /must be a Vega-Lite schema/
    ],
    [{ mark: 'bar', data: { values }, signals: [] }, /spec\.signals is not a Vega-Lite property/],
    [{ layer: [{ mark: 'bar', data: { values }, usermeta: {} }] }, /spec.layer\[0\].usermeta is not allowed/],
    [{ mark: 'bar', data: { values: 'x'.repeat(200_001) } }, /larger than/]
  ] as const
  model.push({ toolCalls: bad.map(([spec]) => ({ name: 'render_chart', args: { spec } })) }, { text: 'no chart' })
  const res = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'chart', stream: false } })
  t.same(res.json().renders, [], 'nothing reaches the page')
  res
    .json()
    .toolCalls.forEach((call: any, i: number) =>
      t.match(call.result.error, { code: 'VALIDATION', message: bad[i][1] }, String(bad[i][1]))
    )
  const fine = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: 'ok',
    mark: 'bar',
    data: { values },
    encoding: { x: { field: 's' }, y: { field: 'n', type: 'quantitative' } },
    config: { bar: { color: '#1f4fd1' } }
  }
  model.push({ toolCalls: [{ name: 'render_chart', args: { spec: fine } }] }, { text: 'chart' })
  t.same(
    (await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'chart', stream: false } })).json().renders,
    [{ type: 'chart', spec: fine }]
  )
})

t.test('the tool-round cap ends a turn that never stops calling tools', async (t) => {
  const capped = await startAgent(t, model, {
    svcUrl: svc.url,
    auth: { mode: 'service', bearer: aliceBearer },
    maxToolRounds: 2
  })
  const before = model.requests.length
  model.push(...Array.from({ length: 5 }, () => ({ toolCalls: [{ name: 'list_resources', args: {} }] })))
  const res = await capped.inject({ method: 'POST', url: '/chat', payload: { message: 'loop', stream: false } })
  t.equal(res.statusCode, 200)
  t.equal(model.requests.length - before, 3, 'two tool rounds, then the model is not asked again')
  t.equal(res.json().toolCalls.length, 2)
  t.equal(res.json().roundsCapped, true)
  t.match(res.json().text, /stopped after 2 rounds/)
  model.clear()
})

t.test('tool results are bounded before the model reads them', async (t) => {
  for (let i = 0; i < 30; i++) {
    await createRecord(svc, alice.headers, 'contacts', { name: `Bulk ${i}`, note: 'x'.repeat(200) })
  }
  const small = await startAgent(t, model, {
    svcUrl: svc.url,
    auth: { mode: 'service', bearer: aliceBearer },
    maxResultChars: 2000
  })
  model.push({ toolCalls: [{ name: 'list_contacts', args: { perPage: 50 } }] }, { text: 'Many.' })
  const res = await small.inject({ method: 'POST', url: '/chat', payload: { message: 'all', stream: false } })
  const result = res.json().toolCalls[0].result
  t.ok(result.omittedForSize > 0, `omitted ${String(result.omittedForSize)}`)
  t.ok(result.results.length > 0)
  const sent = model.requests.at(-1).messages.find((m: any) => m.role === 'tool').content
  t.ok(sent.length <= 2000, `the model read ${String(sent.length)} chars`)
})

t.test('an expired SVC_BEARER is 401 UNAUTHENTICATED, before the model is asked', async (t) => {
  const expired = signToken({ user_id: alice.userId, email: 'a@example.test', roles: ['user'] }, JWT_SECRET, {
    expiresIn: -10
  })
  const stale = await startAgent(t, model, { svcUrl: svc.url, auth: { mode: 'service', bearer: expired } })
  const before = model.requests.length
  for (const stream of [true, false]) {
    const res = await stale.inject({ method: 'POST', url: '/chat', payload: { message: 'hi', stream } })
    t.equal(res.statusCode, 401)
    t.equal(res.json().error.code, 'UNAUTHENTICATED')
    t.match(res.json().error.message, /SVC_BEARER has expired/)
  }
  t.equal(model.requests.length, before)
})

t.test('a bearer the service refuses is 401 UNAUTHENTICATED', async (t) => {
  const forged = signToken(
    { user_id: alice.userId, email: 'a@example.test', roles: ['user'] },
    'another-secret-entirely-0123456789'
  )
  const refused = await startAgent(t, model, { svcUrl: svc.url, auth: { mode: 'service', bearer: forged } })
  const res = await refused.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } })
  t.equal(res.statusCode, 401)
  t.equal(res.json().error.code, 'UNAUTHENTICATED')
})

t.test('SVC_CLIENT_ID: read-only identity sent as X-Client-Id', async (t) => {
  const anonymous = await startAgent(t, model, {
    svcUrl: svc.url,
    auth: { mode: 'service', clientId: 'no-such-client' }
  })
  const res = await anonymous.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } })
  t.equal(res.statusCode, 401, 'the service refused the unknown client id')
  t.equal(res.json().error.code, 'UNAUTHENTICATED')
  t.rejects(startAgent(t, model, { svcUrl: svc.url, auth: { mode: 'service' } }), /SVC_BEARER or SVC_CLIENT_ID/)
})

t.test('model failures end the stream with done ok:false, or a 503 envelope', async (t) => {
  model.push({ status: 401, body: 'invalid key' })
  const streamed = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } })
  t.equal(streamed.statusCode, 200)
  const last = parseSse(streamed.body).at(-1)
  t.equal(last?.event, 'done')
  t.match(last?.data, {
    type: 'done',
    ok: false,
    error: { code: 'SERVICE_UNAVAILABLE', message: /check AGENT_LLM_API_KEY/ }
  })
  model.push({ stall: 'headers' })
  const json = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi', stream: false } })
  t.equal(json.statusCode, 503)
  t.match(json.json(), { error: { code: 'SERVICE_UNAVAILABLE', message: /timed out/ } })
})

t.test('bad requests', async (t) => {
  for (const payload of [
    {},
    { message: '' },
    { message: 7 },
    { message: 'x'.repeat(8001) },
    { message: 'x', stream: 'yes' }
  ]) {
    const res = await agent.inject({ method: 'POST', url: '/chat', payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 40))
    t.equal(res.json().error.code, 'VALIDATION')
  }
  const notFound = await agent.inject({ method: 'GET', url: '/nowhere' })
  t.same(notFound.json(), { error: { code: 'NOT_FOUND', message: 'no route GET /nowhere' } })
})

t.test('an unreachable service is 503', async (t) => {
  const gone = await startAgent(t, model, {
    svcUrl: 'http://127.0.0.1:1',
    auth: { mode: 'service', bearer: aliceBearer }
  })
  const res = await gone.inject({ method: 'POST', url: '/chat', payload: { message: 'hi' } })
  t.equal(res.statusCode, 503)
  t.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
})

t.test('the same turn against a model speaking the Anthropic Messages protocol', async (t) => {
  const claude = await startScriptedModel('anthropic')
  t.teardown(claude.close)
  const agentA = await startAgent(t, claude, {
    provider: 'anthropic',
    svcUrl: svc.url,
    auth: { mode: 'service', bearer: aliceBearer }
  })
  claude.push(
    { text: 'Looking.', toolCalls: [{ name: 'list_contacts', args: { filter: { status: 'customer' } } }] },
    { toolCalls: [{ name: 'render_table', args: { columns: ['name'], rows: [['Ada']] } }] },
    { text: 'One customer: Ada.' }
  )
  const res = await agentA.inject({ method: 'POST', url: '/chat', payload: { message: 'customers?' } })
  const events = parseSse(res.body)
  t.same(sequence(events), [
    'token',
    'tool_call',
    'tool_result',
    'tool_call',
    'tool_result',
    'render',
    'token',
    'final',
    'done'
  ])
  t.same(
    events.find((e) => e.event === 'tool_result')?.data.result.results.map((r: any) => r.name),
    ['Ada']
  )
  t.equal(events.find((e) => e.event === 'final')?.data.text, 'Looking.\n\nOne customer: Ada.')
  const toolResult = claude.requests[1].messages.at(-1).content[0]
  t.equal(toolResult.type, 'tool_result', 'the tool result went back as a tool_result block')
  t.match(toolResult.content, /"Ada"/)
})
