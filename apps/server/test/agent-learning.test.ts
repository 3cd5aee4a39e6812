import t, { type Test } from 'tap'
import { getTestDb, signToken } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

// CONTRACT "The agent process": AGENT_LEARNING=true on the service loads @svc/agent's schemas.

const SECRET = 'agent-learning-test-secret'
const AGENT_SCHEMAS = ['agentConversations', 'agentMemory', 'agentPersona', 'customerProfiles', 'skills']

async function paths (
  t: Test,
  env: Record<string, string>
): Promise<{
  paths: string[]
  inject: (roles: string[], url: string, body: unknown) => Promise<{ statusCode: number; json: () => any }>
}> {
  const { config } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: SECRET, SCHEMA_DIR: workspace().schemaDir, ...env })
  if (config == null) throw new Error('test config invalid')
  const { db } = await getTestDb(t)
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())
  const described = (await app.inject({ method: 'GET', url: '/_describe' })).json()
  const inject = async (roles: string[], url: string, body: unknown): Promise<any> => {
    const token = signToken({ user_id: '65f000000000000000000001', email: 'a@example.test', roles }, SECRET)
    return await app.inject({
      method: 'POST',
      url,
      payload: body as object,
      headers: { authorization: `Bearer ${token}` }
    })
  }
  return { paths: described.schemas.map((s: { path: string }) => s.path), inject }
}

t.test('AGENT_LEARNING=true loads the agent schemas with their field ACL', async (t) => {
  const on = await paths(t, { AGENT_LEARNING: 'true' })
  for (const p of AGENT_SCHEMAS) t.ok(on.paths.includes(p), `${p} is served`)
  const denied = await on.inject(['user'], '/api/v1/agentMemory', { content: 'x' })
  t.equal(denied.statusCode, 403, 'memory is written by role agent only')
  t.match(denied.json().error, { code: 'FORBIDDEN', details: { field: 'content' } })
  t.equal(
    (
      await on.inject(['agent'], '/api/v1/agentMemory', {
        content: 'reports in EUR',
        channel: 'http',
        channelUserId: 'c1'
      })
    ).statusCode,
    201,
    'the agent remembers'
  )

  const off = await paths(t, {})
  t.same(
    off.paths.filter((p) => AGENT_SCHEMAS.includes(p)),
    [],
    'unset: none of them'
  )
})

t.test('AGENT_LEARNING must be true or false', async (t) => {
  const { problems } = loadConfig({ NODE_ENV: 'test', JWT_SECRET: SECRET, AGENT_LEARNING: 'yes' })
  t.match(problems, [/AGENT_LEARNING must be "true" or "false"/])
})
