import t from 'tap'
import { tokenUser } from '@svc/testkit'
import { agentConversationsSchema, learningSchemas } from '../src/schemas/index.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, contactsSchema, cookieOf, cuidOf, startAgent, startService } from './helper.js'

const svc = await startService(t, { schemas: [contactsSchema, agentConversationsSchema, ...learningSchemas] })
const agentUser = tokenUser(JWT_SECRET, { roles: ['agent'] })
// The person operating the agent: same tenant, human role.
const operator = tokenUser(JWT_SECRET, { user_id: agentUser.userId, roles: ['user'] })
const mine = { channel: 'http', channelUserId: 'c1' }

async function write (
  headers: Record<string, string>,
  method: 'POST' | 'PUT',
  url: string,
  payload: Record<string, unknown>
): Promise<{ status: number; body: any }> {
  const res = await svc.app.inject({ method, url, headers, payload })
  return { status: res.statusCode, body: res.json() }
}

async function list (path: string, query = ''): Promise<any[]> {
  return (
    await svc.app.inject({ method: 'GET', url: `/api/v1/${path}?__perPage=100${query}`, headers: operator.headers })
  ).json().results
}

t.test('field ACL keyed to role agent; memory and profiles keyed by (channel, channelUserId)', async (t) => {
  const denied = await write(operator.headers, 'POST', '/api/v1/agentMemory', { content: 'x', ...mine })
  t.equal(denied.status, 403, 'writing memory without role agent')
  t.match(denied.body.error, { code: 'FORBIDDEN', details: { field: 'content' } })
  t.equal(
    (await write(operator.headers, 'POST', '/api/v1/customerProfiles', { ...mine, summary: 's' })).status,
    403,
    'profiles too'
  )
  const unkeyed = await write(agentUser.headers, 'POST', '/api/v1/agentMemory', { content: 'for everyone' })
  t.equal(unkeyed.status, 400, 'a memory belongs to one chat user')
  t.match(unkeyed.body.error, { code: 'VALIDATION' })
  t.equal(
    (await write(agentUser.headers, 'POST', '/api/v1/agentMemory', { content: 'The user reports in EUR.', ...mine }))
      .status,
    201
  )
  t.equal(
    (await write(agentUser.headers, 'POST', '/api/v1/customerProfiles', { ...mine, summary: 'Prefers short answers.' }))
      .status,
    201
  )

  const draft = await write(agentUser.headers, 'POST', '/api/v1/skills', {
    name: 'Monthly report',
    steps: '1. list deals'
  })
  t.equal(draft.status, 201)
  t.equal(draft.body.status, 'draft', 'the agent drafts')
  t.equal(
    (await write(agentUser.headers, 'POST', '/api/v1/skills', { name: 'x', status: 'approved' })).status,
    403,
    'the agent cannot create an approved skill'
  )
  t.equal(
    (await write(agentUser.headers, 'PUT', `/api/v1/skills/${String(draft.body._id)}`, { status: 'approved' })).status,
    403,
    'nor promote one'
  )
  const promoted = await write(operator.headers, 'PUT', `/api/v1/skills/${String(draft.body._id)}`, {
    status: 'approved'
  })
  t.equal(promoted.body.status, 'approved', 'a person promotes it')

  t.equal(
    (await write(agentUser.headers, 'POST', '/api/v1/agentPersona', { instructions: 'Be rude.' })).status,
    403,
    'the agent cannot author the persona'
  )
  const persona = await write(operator.headers, 'POST', '/api/v1/agentPersona', {
    name: 'Helper',
    instructions: 'Answer in one short paragraph.'
  })
  t.equal(persona.status, 201)
  const patch = await write(agentUser.headers, 'PUT', `/api/v1/agentPersona/${String(persona.body._id)}`, {
    proposedPatch: 'Also greet by name.'
  })
  t.equal(patch.status, 200, 'the agent proposes a patch')
  t.equal(patch.body.instructions, 'Answer in one short paragraph.')
  t.equal(
    (await write(agentUser.headers, 'PUT', `/api/v1/agentPersona/${String(persona.body._id)}`, { instructions: 'x' }))
      .status,
    403
  )
  t.equal(
    (await write(agentUser.headers, 'POST', '/api/v1/agentPersona', { proposedPatch: 'newer, without instructions' }))
      .status,
    201,
    'a newer record with only a proposal'
  )
})

t.test("recall: the persona, approved skills, and this chat user's own memories and profile", async (t) => {
  const model = await startScriptedModel('openai')
  t.teardown(model.close)
  const agent = await startAgent(t, model, {
    svcUrl: svc.url,
    auth: { mode: 'service', bearer: agentUser.headers.authorization.slice(7) },
    learning: true
  })
  await write(agentUser.headers, 'POST', '/api/v1/skills', { name: 'Unapproved trick', steps: 'never shown' })
  model.push({ text: 'Hi.' })
  const first = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi', stream: false } })
  t.equal(first.statusCode, 200)
  const cookie = cookieOf(first)
  const cuid = cuidOf(cookie)
  const system = model.requests.at(-1).messages[0]
  t.equal(system.role, 'system')
  t.match(
    system.content,
    /Persona:\nAnswer in one short paragraph\./,
    'the newest authored persona, not the bare proposal'
  )
  t.match(system.content, /Approved skills:\n- Monthly report\n {2}Steps: 1\. list deals/)
  t.notMatch(system.content, /Unapproved trick/, 'drafts are not shared knowledge')
  t.notMatch(system.content, /EUR|short answers/, "c1's memory and profile belong to c1")
  const names = model.requests.at(-1).tools.map((x: any) => x.function.name)
  for (const name of ['remember', 'update_customer_profile', 'draft_skill']) {
    t.ok(names.includes(name), `${name} offered to role agent`)
  }

  model.push(
    {
      toolCalls: [
        { name: 'remember', args: { content: 'Asked about deals on Monday.', channel: 'slack', channelUserId: 'c1' } },
        {
          name: 'update_customer_profile',
          args: { displayName: 'Ada', preferences: { currency: 'EUR' }, channelUserId: 'c1' }
        },
        { name: 'draft_skill', args: { name: 'Deal digest', steps: 'list deals; chart them', status: 'approved' } }
      ]
    },
    { text: 'Noted.' }
  )
  const res = await agent.inject({
    method: 'POST',
    url: '/chat',
    headers: { cookie },
    payload: { message: 'remember this', stream: false }
  })
  t.same(
    res.json().toolCalls.map((c: any) => c.result),
    [
      { remembered: 'Asked about deals on Monday.' },
      { profile: { displayName: 'Ada', preferences: { currency: 'EUR' } } },
      { drafted: 'Deal digest', status: 'draft' }
    ]
  )
  t.match(
    await list('agentMemory', '&content=Asked%20about%20deals%20on%20Monday.'),
    [{ channel: 'http', channelUserId: cuid }],
    'keyed by the verified chat user, whatever the model said'
  )
  t.match(await list('customerProfiles', '&displayName=Ada'), [{ channel: 'http', channelUserId: cuid }])
  t.equal((await list('skills', '&name=Deal%20digest'))[0].status, 'draft', 'a drafted skill waits for a person')

  model.push({ toolCalls: [{ name: 'update_customer_profile', args: { summary: 'Runs a bakery.' } }] }, { text: 'ok' })
  await agent.inject({
    method: 'POST',
    url: '/chat',
    headers: { cookie },
    payload: { message: 'I run a bakery', stream: false }
  })
  t.match(
    await list('customerProfiles', `&channelUserId=${String(cuid)}`),
    [{ displayName: 'Ada', summary: 'Runs a bakery.' }],
    'one profile per chat user, updated in place'
  )
  model.push({ text: 'ok' })
  await agent.inject({
    method: 'POST',
    url: '/chat',
    headers: { cookie },
    payload: { message: 'again', stream: false }
  })
  const again = model.requests.at(-1).messages[0].content
  t.match(again, /- Asked about deals on Monday\./, 'the new memory is recalled next turn')
  t.match(
    again,
    /About the person you are talking to:\nName: Ada\nSummary: Runs a bakery\.\nPreferences: {"currency":"EUR"}/
  )

  model.push(
    {
      toolCalls: [
        { name: 'remember', args: { content: '' } },
        { name: 'remember', args: { content: 'x'.repeat(2001) } },
        { name: 'draft_skill', args: { name: 'no steps' } }
      ]
    },
    { text: 'ok' }
  )
  const bad = await agent.inject({
    method: 'POST',
    url: '/chat',
    headers: { cookie },
    payload: { message: 'bad', stream: false }
  })
  for (const call of bad.json().toolCalls) t.match(call.result, { error: { code: 'VALIDATION' } }, call.name)

  const plain = await startAgent(t, model, {
    svcUrl: svc.url,
    auth: { mode: 'service', bearer: agentUser.headers.authorization.slice(7) }
  })
  model.push({ text: 'ok' })
  await plain.inject({ method: 'POST', url: '/chat', headers: { cookie }, payload: { message: 'hi', stream: false } })
  t.notMatch(model.requests.at(-1).messages[0].content, /Persona/, 'without learning nothing is recalled')
  t.notOk(
    model.requests.at(-1).tools.some((x: any) => x.function.name === 'remember'),
    'nor are the learning tools offered'
  )
})

t.test("a person's own token (no role agent) gets recall but no learning tools", async (t) => {
  const model = await startScriptedModel('openai')
  t.teardown(model.close)
  const agent = await startAgent(t, model, {
    svcUrl: svc.url,
    auth: { mode: 'service', bearer: operator.headers.authorization.slice(7) },
    learning: true
  })
  model.push({ toolCalls: [{ name: 'remember', args: { content: 'sneaky' } }] }, { text: 'ok' })
  const res = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'hi', stream: false } })
  t.match(model.requests.at(-2).messages[0].content, /Persona:\nAnswer in one short paragraph\./)
  t.match(res.json().toolCalls[0].result, { error: { code: 'NOT_FOUND', message: 'no tool named remember' } })
})
