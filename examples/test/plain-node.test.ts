import t from 'tap'
import { getTestDb } from '@svc/testkit'
import { EXAMPLES_DIR, run } from './helpers/process.js'
import { LISTENING, exerciseSnippetApp } from './helpers/todos-flow.js'

// examples/app.mjs is the README's "add svc to an existing Fastify app" snippet (the README test
// keeps them identical). Plain `node`: no tsx, no export condition, @svc/core from its dist/.
t.test('the README snippet runs with plain node inside the workspace', async (t) => {
  const { uri } = await getTestDb(t)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MONGODB_URI: uri,
    JWT_SECRET: 'plain-node-example-secret-0123456789',
    PORT: '0'
  }
  delete env.NODE_OPTIONS
  const app = run(t, process.execPath, ['app.mjs'], { cwd: EXAMPLES_DIR, env })
  const [, url] = await app.waitFor(LISTENING, 60_000)
  await exerciseSnippetApp(t, url)
})
