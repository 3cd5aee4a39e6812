import t from 'tap'
import { getTestDb } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { workspace } from './fixtures/workspace.js'

t.test('the reference server serves the data console at /console and the reset link leads to it', async (t) => {
  const { config } = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'server-test-secret',
    SCHEMA_DIR: workspace().schemaDir
  })
  if (config == null) throw new Error('test config invalid')
  const { db } = await getTestDb(t)
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())
  const page = await app.inject('/console/data/notes')
  t.equal(page.statusCode, 200, 'GET /console/data/notes')
  t.match(page.body, '<base href="/console/">')
  t.match(
    page.headers['content-security-policy'],
    /script-src 'self'/,
    'the page keeps its own policy next to the JSON one of @svc/surface'
  )
  const reset = await app.inject('/reset-password?token=t0k3n')
  t.equal(reset.statusCode, 302)
  t.equal(reset.headers.location, '/console/reset-password?token=t0k3n')
  const docs = (await app.inject('/api-docs/swagger.json')).json() as { paths: Record<string, unknown> }
  t.notOk(
    Object.keys(docs.paths).some((p) => p.startsWith('/console') || p === '/reset-password'),
    'pages are not API: absent from the API description'
  )
})
