// The agent's own cost per chat turn and per tool round, with the scripted model (no model
// think time) against a live svc on the embedded devdb, all in this process, plus first-token
// latency over real HTTP. Model time and time the service spends answering (MCP calls,
// conversation load/save) are measured and subtracted, leaving the agent's overhead.
// Usage: pnpm --filter @svc/agent bench   (BENCH_TURNS, default 40)
import { performance } from 'node:perf_hooks'
import Fastify from 'fastify'
import { request } from 'undici'
import { tokenUser } from '@svc/testkit'
import { createModel, svcAgent, type Model } from '../src/index.js'
import { startScriptedModel } from '../src/testing/index.js'
import { JWT_SECRET, createRecord, startService } from '../test/helper.js'

const TURNS = Number(process.env.BENCH_TURNS ?? 40)
const teardowns: Array<() => Promise<void> | void> = []
const t = {
  teardown: (fn: () => Promise<void> | void) => {
    teardowns.push(fn)
  }
}

function stats (xs: number[]): { median: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b)
  return { median: s[Math.floor(s.length / 2)], p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))] }
}
const ms = (x: number): string => `${x.toFixed(2)} ms`

try {
  const svc = await startService(t)
  let serviceMs = 0
  svc.app.server.on('request', (_req, res) => {
    const start = performance.now()
    res.on('finish', () => {
      serviceMs += performance.now() - start
    })
  })
  const user = tokenUser(JWT_SECRET)
  for (let i = 0; i < 20; i++) {
    await createRecord(svc, user.headers, 'contacts', {
      name: `Contact ${i}`,
      status: i % 2 === 0 ? 'lead' : 'customer'
    })
  }

  const scripted = await startScriptedModel('openai')
  t.teardown(scripted.close)
  const inner = createModel({ provider: 'openai', url: scripted.url, model: 'scripted', retries: 0 })
  let modelMs = 0
  const model: Model = {
    provider: 'timed',
    async complete (req) {
      const start = performance.now()
      try {
        return await inner.complete(req)
      } finally {
        modelMs += performance.now() - start
      }
    }
  }
  const agent = Fastify({ logger: false })
  await agent.register(svcAgent, {
    svcUrl: svc.url,
    model,
    auth: { mode: 'service', bearer: user.headers.authorization.slice(7) },
    sessionSecret: 'bench-session-secret-0123456789abcdef',
    cookieSecure: false,
    limits: { chatPerMinute: 1e6, chatPerMinutePerUser: 1e6 }
  })
  t.teardown(async () => await agent.close())
  await agent.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(agent.server.address() as { port: number }).port}`

  const first = await agent.inject({ method: 'POST', url: '/chat', payload: { message: 'warm up', stream: false } })
  const cookie = String(first.headers['set-cookie']).split(';')[0]

  async function turn (rounds: number): Promise<{ wall: number; own: number }> {
    for (let r = 0; r < rounds; r++) scripted.push({ toolCalls: [{ name: 'list_contacts', args: { perPage: 10 } }] })
    scripted.push({ text: 'There are twenty contacts in total.' })
    modelMs = 0
    serviceMs = 0
    const start = performance.now()
    const res = await agent.inject({
      method: 'POST',
      url: '/chat',
      headers: { cookie },
      payload: { message: 'How many contacts?' }
    })
    const wall = performance.now() - start
    if (!res.body.includes('"ok":true')) throw new Error(`turn failed: ${res.body.slice(-300)}`)
    return { wall, own: wall - modelMs - serviceMs }
  }

  const rows: Array<{ rounds: number; wall: number; own: number }> = []
  for (const rounds of [0, 1, 4]) {
    for (let i = 0; i < 5; i++) await turn(rounds)
    const walls: number[] = []
    const owns: number[] = []
    for (let i = 0; i < TURNS; i++) {
      const r = await turn(rounds)
      walls.push(r.wall)
      owns.push(r.own)
    }
    rows.push({ rounds, wall: stats(walls).median, own: stats(owns).median })
    console.log(
      `turn with ${rounds} tool round(s): wall ${ms(stats(walls).median)} median (p95 ${ms(stats(walls).p95)}), agent's own ${ms(stats(owns).median)} (p95 ${ms(stats(owns).p95)})`
    )
  }
  const [zero, , four] = rows
  console.log(
    `per tool round: ${ms((four.wall - zero.wall) / 4)} wall incl. the service's MCP call, ${ms((four.own - zero.own) / 4)} agent's own (goal < 20 ms)`
  )

  const firsts: number[] = []
  for (let i = 0; i < TURNS + 5; i++) {
    scripted.push({ text: 'Hello there.' })
    const start = performance.now()
    const res = await request(`${base}/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ message: 'hi' })
    })
    let seen = ''
    let at = 0
    for await (const chunk of res.body) {
      seen += chunk.toString()
      if (at === 0 && seen.includes('event: token')) at = performance.now() - start
    }
    if (i >= 5) firsts.push(at)
  }
  console.log(
    `first token over HTTP (scripted model answering at once): ${ms(stats(firsts).median)} median, p95 ${ms(stats(firsts).p95)}`
  )
} finally {
  for (const fn of teardowns.reverse()) await fn()
}
