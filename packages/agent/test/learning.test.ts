import t from 'tap'
import { tokenUser } from '@svc/testkit'
import { agentConversationsSchema, learningSchemas } from '../src/schemas/index.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, contactsSchema, startAgent, startService } from './helper.js'

const svc = await startService(t, { schemas: [contactsSchema, agentConversationsSchema, ...learningSchemas] })
const agentUser = tokenUser(JWT_SECRET, { roles: ['agent'] })
// The person operating the agent: same tenant, human role.
const operator = tokenUser(JWT_SECRET, { user_id: agentUser.userId, roles: ['user'] })

async function write (headers: Record<string, string>, method: 'POST' | 'PUT', url: string, payload: Record<string, unknown>): Promise<{ status: number, body: any }> {
  const res = await svc.app.inject({ method, url, headers, payload })
  return { status: res.statusCode, body: res.json() }
}

t.test('field ACL keyed to role agent', async (t) => {
  const denied = await write(operator.headers, 'POST', '/api/v1/agentMemory', { content: 'x' })
  t.equal(denied.status, 403, 'writing memory without role agent')
  t.match(denied.body.error, { code: 'FORBIDDEN', details: { field: 'content' } })
  t.equal((await write(operator.headers, 'POST', '/api/v1/customerProfiles', { channelUserId: 'c1', summary: 's' })).status, 403, 'profiles too')
  t.equal((await write(agentUser.headers, 'POST', '/api/v1/agentMemory', { content: 'The user reports in EUR.' })).status, 201)
  t.equal((await write(agentUser.headers, 'POST', '/api/v1/customerProfiles', { channelUserId: 'c1', summary: 'Prefers short answers.' })).status, 201)

  const draft = await write(agentUser.headers, 'POST', '/api/v1/skills', { name: 'Monthly report', steps: '1. list deals' })
  t.equal(draft.status, 201)
  t.equal(draft.body.status, 'draft', 'the agent drafts')
  t.equal((await write(agentUser.headers, 'POST', '/api/v1/skills', { name: 'x', status: 'approved' })).status, 403, 'the agent cannot create an approved skill')
  t.equal((await write(agentUser.headers, 'PUT', `/api/v1/skills/${String(draft.body._id)}`, { status: 'approved' })).status, 403, 'nor promote one')
  const promoted = await write(operator.headers, 'PUT', `/api/v1/skills/${String(draft.body._id)}`, { status: 'approved' })
  t.equal(promoted.body.status, 'approved', 'a person promotes it')

  t.equal((await write(agentUser.headers, 'POST', '/api/v1/agentPersona', { instructions: 'Be rude.' })).status, 403, 'the agent cannot author the persona')
  const persona = await write(operator.headers, 'POST', '/api/v1/agentPersona', { name: 'Helper', instructions: 'Answer in one short paragraph.' })
  t.equal(persona.status, 201)
  const patch = await write(agentUser.headers, 'PUT', `/api/v1/agentPersona/${String(persona.body._id)}`, { proposedPatch: 'Also greet by name.' })
  t.equal(patch.status, 200, 'the agent proposes a patch')
  t.equal(patch.body.instructions, 'Answer in one short paragraph.')
  t.equal((await write(agentUser.headers, 'PUT', `/api/v1/agentPersona/${String(persona.body._id)}`, { instructions: 'x' })).status, 403)
})

t.test('persona and memories are recalled into the prompt; the agent can remember through its tools', async (t) => {
  const model = await startScriptedModel('openai')
  t.teardown(model.close)
  const agent = await startAgent(t, model, { svcUrl: svc.url, auth: { mode: 'service', bearer: agentUser.headers.authorization.slice(7) }, learning: true })
  model.push({ toolCalls: [{ name: 'create_agentMemory', args: { record: { content: 'Asked about deals on Monday.' } } }] }, { text: 'Noted.' })
  const res = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'remember this', stream: false } })
  t.equal(res.statusCode, 200)
  const system = model.requests.at(-1).messages[0]
  t.equal(system.role, 'system')
  t.match(system.content, /Persona:\nAnswer in one short paragraph\./)
  t.match(system.content, /- The user reports in EUR\./)
  t.notOk(res.json().toolCalls[0].result.error, JSON.stringify(res.json().toolCalls[0].result))
  model.push({ text: 'ok' })
  await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'again', stream: false } })
  t.match(model.requests.at(-1).messages[0].content, /- Asked about deals on Monday\./, 'the new memory is recalled next turn')

  const plain = await startAgent(t, model, { svcUrl: svc.url, auth: { mode: 'service', bearer: agentUser.headers.authorization.slice(7) } })
  model.push({ text: 'ok' })
  await plain.inject({ method: 'POST', url: '/chat', payload: { message: 'hi', stream: false } })
  t.notMatch(model.requests.at(-1).messages[0].content, /Persona/, 'without learning nothing is recalled')
})
