import t from 'tap'
import { loadConfig } from '../src/config.js'

const minimal = { SVC_BEARER: 'a.b.c', AGENT_MODEL: 'llama3.1' }

t.test('defaults of CONTRACT.md', async (t) => {
  const { config, problems, warnings } = loadConfig(minimal)
  t.same(problems, [])
  t.match(config, {
    port: 3100,
    host: '127.0.0.1',
    svcUrl: 'http://127.0.0.1:3000',
    authMode: 'service',
    cookieSecure: true,
    maxToolRounds: 8,
    maxResultChars: 16000,
    llm: { provider: 'openai', model: 'llama3.1' }
  })
  t.equal(config?.llm.url, undefined, "the provider's public API")
  t.match(warnings, [/AGENT_SESSION_SECRET is unset/])
})

t.test('per-user mode', async (t) => {
  const missing = loadConfig({ AGENT_AUTH_MODE: 'per-user', AGENT_MODEL: 'm' })
  t.match(missing.problems, [/AGENT_SESSION_SECRET is required in per-user mode/])
  const { config, problems } = loadConfig({
    AGENT_AUTH_MODE: 'per-user',
    AGENT_MODEL: 'm',
    AGENT_SESSION_SECRET: 's'.repeat(32)
  })
  t.same(problems, [], 'no SVC_BEARER needed')
  t.match(config, {
    authMode: 'per-user',
    storeUrl: 'file:./svc-agent-store.json',
    accessTtlSeconds: 900,
    refreshSkewSeconds: 60,
    linkTtlSeconds: 900,
    agentKey: 'default'
  })
  t.equal(config?.linkBaseUrl, undefined, 'the listening address')
  const all = loadConfig({
    AGENT_AUTH_MODE: 'per-user',
    AGENT_MODEL: 'm',
    AGENT_SESSION_SECRET: 's'.repeat(32),
    STORE_URL: 'memory:',
    AGENT_LINK_BASE_URL: 'https://chat.example.test',
    AGENT_ACCESS_TTL_SECONDS: '300',
    AGENT_REFRESH_SKEW_SECONDS: '30',
    AGENT_LINK_TTL_SECONDS: '60',
    AGENT_KEY: 'tenant-a'
  })
  t.match(all.config, {
    storeUrl: 'memory:',
    linkBaseUrl: 'https://chat.example.test',
    accessTtlSeconds: 300,
    refreshSkewSeconds: 30,
    linkTtlSeconds: 60,
    agentKey: 'tenant-a'
  })
  t.match(
    loadConfig({
      AGENT_AUTH_MODE: 'per-user',
      AGENT_MODEL: 'm',
      AGENT_SESSION_SECRET: 's'.repeat(32),
      STORE_URL: 'redis://127.0.0.1:6379/0?keyPrefix=a:'
    }).config,
    { storeUrl: 'redis://127.0.0.1:6379/0?keyPrefix=a:', storeUrlSet: true }
  )
  const bad = loadConfig({
    AGENT_AUTH_MODE: 'per-user',
    AGENT_MODEL: 'm',
    AGENT_SESSION_SECRET: 's'.repeat(32),
    STORE_URL: 'mongodb://user:secret@x',
    AGENT_ACCESS_TTL_SECONDS: '60',
    AGENT_REFRESH_SKEW_SECONDS: '60',
    AGENT_LINK_BASE_URL: 'chat'
  })
  t.notMatch(bad.problems.join('\n'), /secret/, 'a refused STORE_URL is quoted without its credentials')
  for (const name of ['STORE_URL', 'AGENT_REFRESH_SKEW_SECONDS', 'AGENT_LINK_BASE_URL']) {
    t.ok(
      bad.problems.some((p) => p.includes(name)),
      name
    )
  }
})

t.test('every setting is read', async (t) => {
  const { config } = loadConfig({
    PORT: '0',
    HOST: '0.0.0.0',
    SVC_URL: 'http://svc:3000',
    SVC_CLIENT_ID: 'web',
    AGENT_SESSION_SECRET: 's'.repeat(32),
    AGENT_COOKIE_SECURE: 'false',
    AGENT_LLM_PROVIDER: 'anthropic',
    AGENT_LLM_URL: 'http://llm:8080/v1',
    AGENT_LLM_API_KEY: 'k',
    AGENT_MODEL: 'm',
    AGENT_MAX_TOOL_ROUNDS: '3',
    AGENT_MAX_RESULT_CHARS: '4000'
  })
  t.match(config, {
    port: 0,
    host: '0.0.0.0',
    svcUrl: 'http://svc:3000',
    svcClientId: 'web',
    cookieSecure: false,
    maxToolRounds: 3,
    maxResultChars: 4000,
    llm: { provider: 'anthropic', url: 'http://llm:8080/v1', apiKey: 'k', model: 'm' }
  })
})

t.test('the learning layer', async (t) => {
  t.equal(loadConfig(minimal).config?.learning, false)
  t.equal(loadConfig({ ...minimal, AGENT_LEARNING: 'true' }).config?.learning, true)
  t.match(loadConfig({ ...minimal, AGENT_LEARNING: 'yes' }).problems, [/AGENT_LEARNING must be true or false/])
})

t.test('rate limits and the proxy in front', async (t) => {
  t.match(loadConfig(minimal).config, {
    trustProxy: false,
    limits: { chatPerMinute: 120, chatPerMinutePerUser: 30, signInsPerMinute: 10 },
    storeUrlSet: false
  })
  t.match(
    loadConfig({
      ...minimal,
      AGENT_TRUST_PROXY: '1',
      AGENT_CHAT_PER_MINUTE: '60',
      AGENT_CHAT_PER_MINUTE_PER_USER: '10',
      AGENT_SIGN_INS_PER_MINUTE: '5'
    }).config,
    { trustProxy: 1, limits: { chatPerMinute: 60, chatPerMinutePerUser: 10, signInsPerMinute: 5 } }
  )
  t.same(loadConfig({ ...minimal, AGENT_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1, loopback' }).config?.trustProxy, [
    '10.0.0.0/8',
    '127.0.0.1',
    'loopback'
  ])
  t.equal(loadConfig({ ...minimal, AGENT_TRUST_PROXY: 'false' }).config?.trustProxy, false)
  const bad = loadConfig({ ...minimal, AGENT_TRUST_PROXY: 'everyone', AGENT_CHAT_PER_MINUTE: '0' })
  t.match(bad.problems, [/AGENT_TRUST_PROXY must be a hop count/, /AGENT_CHAT_PER_MINUTE/])
})

t.test('service-mode write tools', async (t) => {
  t.same(loadConfig(minimal).config?.serviceWriteTools, [], 'read tools only by default')
  t.same(
    loadConfig({ ...minimal, AGENT_SERVICE_WRITE_TOOLS: 'create_leads, update_leads' }).config?.serviceWriteTools,
    ['create_leads', 'update_leads']
  )
  t.match(loadConfig({ ...minimal, AGENT_SERVICE_WRITE_TOOLS: 'create leads' }).problems, [/AGENT_SERVICE_WRITE_TOOLS/])
})

t.test('the Slack channel', async (t) => {
  t.equal(loadConfig(minimal).config?.slack, undefined, 'off by default')
  t.same(loadConfig({ ...minimal, SLACK_SIGNING_SECRET: 's', SLACK_BOT_TOKEN: 'xoxb-1' }).config?.slack, {
    signingSecret: 's',
    botToken: 'xoxb-1'
  })
  t.same(
    loadConfig({
      ...minimal,
      SLACK_SIGNING_SECRET: 's',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_API_URL: 'http://slack.local/api'
    }).config?.slack,
    { signingSecret: 's', botToken: 'xoxb-1', apiUrl: 'http://slack.local/api' }
  )
  t.match(loadConfig({ ...minimal, SLACK_BOT_TOKEN: 'xoxb-1' }).problems, [
    /SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN go together/
  ])
  t.match(loadConfig({ ...minimal, SLACK_API_URL: 'x' }).problems, [/SLACK_API_URL/])
})

t.test('every problem is reported at once, naming its variable', async (t) => {
  const { config, problems } = loadConfig({
    PORT: 'x',
    SVC_URL: 'ftp://svc',
    AGENT_AUTH_MODE: 'nobody',
    AGENT_SESSION_SECRET: 'short',
    AGENT_COOKIE_SECURE: 'maybe',
    AGENT_LLM_PROVIDER: 'cohere',
    AGENT_LLM_URL: 'nope',
    AGENT_MAX_TOOL_ROUNDS: '0',
    AGENT_MAX_RESULT_CHARS: '10'
  })
  t.equal(config, null)
  for (const name of [
    'PORT',
    'SVC_URL',
    'AGENT_AUTH_MODE',
    'AGENT_SESSION_SECRET',
    'AGENT_COOKIE_SECURE',
    'AGENT_LLM_PROVIDER',
    'AGENT_MODEL',
    'AGENT_LLM_URL',
    'AGENT_MAX_TOOL_ROUNDS',
    'AGENT_MAX_RESULT_CHARS'
  ]) {
    t.ok(
      problems.some((p) => p.includes(name)),
      name
    )
  }
})
