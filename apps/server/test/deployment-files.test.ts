import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parseAllDocuments } from 'yaml'

// Issue 27: the deployment files parse and say what the README promises. No Docker engine or
// cluster here: .github/workflows/deploy-smoke.yml builds and runs them in CI.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

function docs (path: string): any[] {
  const parsed = parseAllDocuments(readFileSync(join(ROOT, path), 'utf8'), { merge: true })
  for (const d of parsed) {
    if (d.errors.length > 0) throw new Error(`${path}: ${d.errors.map((e) => e.message).join('; ')}`)
  }
  return parsed.map((d) => d.toJS())
}

t.test('every YAML file parses', async (t) => {
  const files = [
    'compose.yaml',
    '.github/workflows/deploy-smoke.yml',
    ...readdirSync(join(ROOT, 'deploy/k8s')).map((f) => `deploy/k8s/${f}`)
  ]
  for (const f of files) t.ok(docs(f).length > 0, f)
})

t.test('compose: a 3-node replica set, Redis, 3 svc replicas and the agent', async (t) => {
  const [compose] = docs('compose.yaml')
  const s = compose.services
  t.same(
    ['mongo1', 'mongo2', 'mongo3'].map((m) => s[m].command.includes('--replSet')),
    [true, true, true]
  )
  t.ok(s.redis)
  for (const r of ['svc1', 'svc2', 'svc3']) {
    t.match(s[r].environment, { REDIS_URL: 'redis://redis:6379', MONGODB_URI: /replicaSet=rs0/ }, r)
  }
  t.match(s.agent.environment, { STORE_URL: /^redis:/ })
  t.same(s.agent.command, ['node', 'apps/agent/bin/agent-dist.js'], 'the agent runs compiled, without tsx')
  t.ok(existsSync(join(ROOT, 'apps/agent/bin/agent-dist.js')))
})

t.test('kubernetes: readiness on /healthz, graceful termination, a PodDisruptionBudget', async (t) => {
  const all = docs('deploy/k8s/svc.yaml')
  const deployment = all.find((d) => d.kind === 'Deployment')
  const container = deployment.spec.template.spec.containers[0]
  t.equal(container.readinessProbe.httpGet.path, '/healthz')
  t.ok(deployment.spec.template.spec.terminationGracePeriodSeconds > 10, 'longer than the 10 s drain')
  t.equal(deployment.spec.template.spec.securityContext.runAsNonRoot, true)
  t.match(
    all.find((d) => d.kind === 'PodDisruptionBudget'),
    { apiVersion: 'policy/v1', spec: { minAvailable: 2 } }
  )
  const agent = docs('deploy/k8s/agent.yaml').find((d) => d.kind === 'Deployment')
  t.same(
    agent.spec.template.spec.containers[0].command,
    ['node', 'apps/agent/bin/agent-dist.js'],
    'the agent runs compiled'
  )
})

t.test('Dockerfile: multi-stage, compiled dist, non-root, HEALTHCHECK', async (t) => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
  t.equal(text.match(/^FROM /gm)?.length, 2, 'two stages')
  t.match(text, /^USER node$/m)
  t.match(text, /^HEALTHCHECK .*\n.*\/healthz/m)
  t.match(text, /CMD \["node", "apps\/server\/bin\/svc-dist\.js", "start"\]/, 'runs the compiled CLI')
})
