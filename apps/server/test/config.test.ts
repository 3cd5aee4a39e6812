import t from 'tap'
import { formatProblems, loadConfig } from '../src/config.js'

t.test('defaults per CONTRACT.md in development', async (t) => {
  const { config, problems, warnings } = loadConfig({})
  t.same(problems, [])
  t.match(config, {
    port: 3000,
    host: '127.0.0.1',
    nodeEnv: 'development',
    mongodbUri: undefined,
    dataDir: './.data',
    schemaDir: './schema',
    accessTokenTtlSeconds: 900,
    pageSize: 20,
    queryTimeoutMs: 5000,
    schemaCheck: 'warn',
    logLevel: 'info',
    softDeleteRetentionDays: undefined,
    softDeleteSweepSeconds: 3600,
    webhookRetrySchedule: [1, 5, 30, 300, 3600],
    uploadsDir: './uploads',
    publicBaseUrl: 'http://127.0.0.1:3000',
    metricsEnabled: false,
    corsOrigins: [],
    rateLimitApiPerMin: 600,
    rateLimitAuthPerMin: 10,
    rateLimitAuthPerEmailPerMin: 5,
    requestTimeoutMs: 30_000,
    requestCostLimit: 250_000,
    rateLimitCostPerMin: 5_000_000,
    jwtSecretGenerated: true
  })
  t.ok((config?.jwtSecret.length ?? 0) >= 32, 'random development secret')
  t.not(loadConfig({}).config?.jwtSecret, config?.jwtSecret, 'a new secret per process start')
  t.match(warnings.join('\n'), /JWT_SECRET is unset/, 'random secret is warned about')
  t.match(
    warnings.join('\n'),
    /tokens stop working at restart \(keep them: JWT_SECRET=/,
    'with the way to keep tokens across restarts'
  )
})

t.test('values are read and converted', async (t) => {
  const { config, problems, warnings } = loadConfig({
    PORT: '0',
    HOST: '0.0.0.0',
    NODE_ENV: 'production',
    MONGODB_URI: 'mongodb://db:27017/app',
    JWT_SECRET: 'x'.repeat(40),
    ACCESS_TOKEN_TTL: '2h',
    PAGE_SIZE: '200',
    CORS_ORIGINS: 'https://a.test, https://b.test',
    METRICS_ENABLED: 'true'
  })
  t.same(problems, [])
  t.same(
    warnings,
    ['SMTP_HOST is unset: password-reset mails (with their tokens) are written to the log'],
    'production without SMTP is warned about'
  )
  t.match(config, {
    port: 0,
    nodeEnv: 'production',
    accessTokenTtlSeconds: 7200,
    pageSize: 200,
    corsOrigins: ['https://a.test', 'https://b.test'],
    metricsEnabled: true,
    jwtSecretGenerated: false
  })
  t.equal(
    loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), MONGODB_URI: 'mongodb://h/d' }).config?.host,
    '0.0.0.0',
    'production listens on all interfaces'
  )
  t.equal(loadConfig({ ACCESS_TOKEN_TTL: '900' }).config?.accessTokenTtlSeconds, 900, 'plain seconds')
  t.equal(loadConfig({ QUERY_TIMEOUT_MS: '250' }).config?.queryTimeoutMs, 250, 'QUERY_TIMEOUT_MS')
  t.match(
    loadConfig({ REQUEST_COST_LIMIT: '1000', RATE_LIMIT_COST_PER_MIN: '9000', RATE_LIMIT_AUTH_PER_EMAIL_PER_MIN: '3' })
      .config,
    { requestCostLimit: 1000, rateLimitCostPerMin: 9000, rateLimitAuthPerEmailPerMin: 3 },
    'cost and per-e-mail limits'
  )
  t.match(loadConfig({ REQUEST_COST_LIMIT: '0' }).problems, [/REQUEST_COST_LIMIT must be a whole number/])
  t.equal(loadConfig({}).config?.loadShedEventLoopDelayMs, 1000, 'load shedding past 1 s of lag by default')
  t.equal(loadConfig({ NODE_ENV: 'test' }).config?.loadShedEventLoopDelayMs, 0, 'off when NODE_ENV=test')
  t.match(loadConfig({ LOAD_SHED_EVENT_LOOP_DELAY_MS: '-1' }).problems, [
    /LOAD_SHED_EVENT_LOOP_DELAY_MS must be a whole number between 0 and 600000/
  ])
  t.equal(loadConfig({ REQUEST_TIMEOUT_MS: '2000' }).config?.requestTimeoutMs, 2000, 'REQUEST_TIMEOUT_MS')
  t.match(loadConfig({ REQUEST_TIMEOUT_MS: '10' }).problems, [
    /REQUEST_TIMEOUT_MS must be a whole number between 1000 and 600000/
  ])
  t.equal(loadConfig({ LOG_LEVEL: 'debug' }).config?.logLevel, 'debug', 'LOG_LEVEL')
  t.equal(
    loadConfig({ SOFT_DELETE_RETENTION_DAYS: '0.25' }).config?.softDeleteRetentionDays,
    0.25,
    'fractional SOFT_DELETE_RETENTION_DAYS'
  )
  t.equal(
    loadConfig({ SOFT_DELETE_SWEEP_SECONDS: '1.5' }).config?.softDeleteSweepSeconds,
    1.5,
    'fractional SOFT_DELETE_SWEEP_SECONDS'
  )
  t.same(
    loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.5, 2,10' }).config?.webhookRetrySchedule,
    [0.5, 2, 10],
    'WEBHOOK_RETRY_SCHEDULE'
  )
  t.match(
    loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1,x' }).problems,
    [/WEBHOOK_RETRY_SCHEDULE must be comma-separated non-negative seconds/],
    'a bad WEBHOOK_RETRY_SCHEDULE is a start-up problem'
  )
  t.match(loadConfig({ QUERY_TIMEOUT_MS: '0' }).problems, [
    /QUERY_TIMEOUT_MS must be a whole number between 1 and 600000/
  ])
  t.equal(
    loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), MONGODB_URI: 'mongodb://h/d' }).config
      ?.schemaCheck,
    'refuse',
    'production refuses schema changes that need data'
  )
  t.equal(
    loadConfig({
      NODE_ENV: 'production',
      JWT_SECRET: 'x'.repeat(32),
      MONGODB_URI: 'mongodb://h/d',
      SCHEMA_CHECK: 'warn'
    }).config?.schemaCheck,
    'warn',
    'unless SCHEMA_CHECK says warn'
  )
  t.match(loadConfig({ SCHEMA_CHECK: 'maybe' }).problems, [
    /SCHEMA_CHECK must be one of refuse, warn, off \(got "maybe"\)/
  ])
})

t.test('every problem is reported, one line each, naming its variable', async (t) => {
  const { config, problems } = loadConfig({
    NODE_ENV: 'production',
    ACCESS_TOKEN_TTL: '3h',
    PAGE_SIZE: '0',
    PORT: 'eighty'
  })
  t.equal(config, null)
  t.equal(problems.length, 5, problems.join('\n'))
  t.match(
    problems.find((p) => p.startsWith('JWT_SECRET')),
    /required when NODE_ENV=production/
  )
  t.match(
    problems.find((p) => p.startsWith('MONGODB_URI')),
    /required when NODE_ENV=production.*SVC_ALLOW_EMBEDDED_DB=true/
  )
  t.match(
    problems.find((p) => p.startsWith('ACCESS_TOKEN_TTL')),
    /at most 2h/
  )
  t.match(
    problems.find((p) => p.startsWith('PAGE_SIZE')),
    /between 1 and 200/
  )
  t.match(
    problems.find((p) => p.startsWith('PORT')),
    /whole number/
  )
  const text = formatProblems(problems)
  t.match(text, /5 problems/)
  t.equal(text.trim().split('\n').length, 6, 'a header line plus one line per problem')
})

t.test('individual rules', async (t) => {
  const prodOk = { NODE_ENV: 'production', JWT_SECRET: 's'.repeat(32), MONGODB_URI: 'mongodb://localhost/svc' }
  const cases: Array<[string, Record<string, string>, RegExp | null]> = [
    ['production with everything', prodOk, null],
    [
      'production without MONGODB_URI but embedded allowed',
      { ...prodOk, MONGODB_URI: '', SVC_ALLOW_EMBEDDED_DB: 'true' },
      null
    ],
    ['production without MONGODB_URI', { ...prodOk, MONGODB_URI: '' }, /^MONGODB_URI is required/],
    ['production with a short secret', { ...prodOk, JWT_SECRET: 'short' }, /^JWT_SECRET must be at least 32/],
    ['TTL exactly 2h', { ACCESS_TOKEN_TTL: '7200' }, null],
    ['TTL 7201 seconds', { ACCESS_TOKEN_TTL: '7201' }, /^ACCESS_TOKEN_TTL must be at most 2h/],
    ['TTL unparsable', { ACCESS_TOKEN_TTL: 'soon' }, /^ACCESS_TOKEN_TTL must be seconds/],
    ['PAGE_SIZE 201', { PAGE_SIZE: '201' }, /^PAGE_SIZE must be a whole number between 1 and 200/],
    ['PAGE_SIZE not a number', { PAGE_SIZE: 'ten' }, /^PAGE_SIZE/],
    ['PAGE_SIZE 1', { PAGE_SIZE: '1' }, null],
    ['unknown NODE_ENV', { NODE_ENV: 'prod' }, /^NODE_ENV must be one of development, test, production/],
    ['bad MONGODB_URI', { MONGODB_URI: 'postgres://x' }, /^MONGODB_URI must start with mongodb/],
    ['bad boolean', { SVC_ALLOW_EMBEDDED_DB: 'yes' }, /^SVC_ALLOW_EMBEDDED_DB must be "true" or "false"/],
    ['bad METRICS_ENABLED', { METRICS_ENABLED: 'on' }, /^METRICS_ENABLED must be "true" or "false"/],
    ['port out of range', { PORT: '70000' }, /^PORT must be a whole number between 0 and 65535/],
    [
      'S3 bucket and region',
      { STORAGE_S3_BUCKET: 'b', STORAGE_S3_REGION: 'eu-west-1', STORAGE_S3_ENDPOINT: 'http://127.0.0.1:9000' },
      null
    ],
    [
      'S3 bucket without region',
      { STORAGE_S3_BUCKET: 'b' },
      /^STORAGE_S3_REGION is required when STORAGE_S3_BUCKET is set/
    ],
    ['S3 endpoint without bucket', { STORAGE_S3_ENDPOINT: 'http://127.0.0.1:9000' }, /^STORAGE_S3_BUCKET is required/],
    [
      'S3 endpoint not a URL',
      { STORAGE_S3_BUCKET: 'b', STORAGE_S3_REGION: 'r', STORAGE_S3_ENDPOINT: 'minio:9000' },
      /^STORAGE_S3_ENDPOINT must be an http\(s\) URL/
    ],
    [
      'production with a short FILES_SIGNING_SECRET',
      { ...prodOk, FILES_SIGNING_SECRET: 'short' },
      /^FILES_SIGNING_SECRET must be at least 32/
    ],
    ['LOG_LEVEL warn', { LOG_LEVEL: 'warn' }, null],
    [
      'LOG_LEVEL unknown',
      { LOG_LEVEL: 'verbose' },
      /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/
    ],
    ['fractional retention', { SOFT_DELETE_RETENTION_DAYS: '0.5' }, null],
    [
      'retention zero',
      { SOFT_DELETE_RETENTION_DAYS: '0' },
      /^SOFT_DELETE_RETENTION_DAYS must be a positive number up to 36500/
    ],
    [
      'retention not a number',
      { SOFT_DELETE_RETENTION_DAYS: '1e3' },
      /^SOFT_DELETE_RETENTION_DAYS must be a positive number/
    ],
    [
      'retention too long',
      { SOFT_DELETE_RETENTION_DAYS: '36501' },
      /^SOFT_DELETE_RETENTION_DAYS must be a positive number up to 36500/
    ],
    ['fractional sweep seconds', { SOFT_DELETE_SWEEP_SECONDS: '.25' }, null],
    [
      'sweep seconds negative',
      { SOFT_DELETE_SWEEP_SECONDS: '-1' },
      /^SOFT_DELETE_SWEEP_SECONDS must be a positive number up to 604800/
    ],
    [
      'realtime settings',
      { REALTIME_RETENTION_HOURS: '0.5', REALTIME_HEARTBEAT_SECONDS: '2.5', REALTIME_MAX_STREAMS_PER_USER: '3' },
      null
    ],
    [
      'realtime retention zero',
      { REALTIME_RETENTION_HOURS: '0' },
      /^REALTIME_RETENTION_HOURS must be a positive number/
    ],
    [
      'realtime heartbeat text',
      { REALTIME_HEARTBEAT_SECONDS: 'often' },
      /^REALTIME_HEARTBEAT_SECONDS must be a positive number/
    ],
    [
      'realtime streams fractional',
      { REALTIME_MAX_STREAMS_PER_USER: '2.5' },
      /^REALTIME_MAX_STREAMS_PER_USER must be a whole number between 1 and 100000/
    ]
  ]
  for (const [name, env, expected] of cases) {
    const { problems, config } = loadConfig(env)
    if (expected == null) {
      t.same(problems, [], `${name}: accepted`)
      t.ok(config, `${name}: config built`)
    } else {
      t.equal(problems.length, 1, `${name}: exactly one problem (${problems.join(' | ')})`)
      t.match(problems[0], expected, `${name}: message`)
      t.equal(config, null, `${name}: no config`)
    }
  }
})

t.test('REALTIME_* (CONTRACT "Realtime" defaults)', async (t) => {
  t.same(loadConfig({}).config?.realtime, { retentionHours: 24, heartbeatSeconds: 15, maxStreamsPerUser: 20 })
  t.same(
    loadConfig({
      REALTIME_RETENTION_HOURS: '0.5',
      REALTIME_HEARTBEAT_SECONDS: '2.5',
      REALTIME_MAX_STREAMS_PER_USER: '3'
    }).config?.realtime,
    { retentionHours: 0.5, heartbeatSeconds: 2.5, maxStreamsPerUser: 3 }
  )
})

t.test('TRUST_PROXY', async (t) => {
  t.equal(loadConfig({}).config?.trustProxy, false, 'unset: the socket peer is the client')
  t.equal(loadConfig({ TRUST_PROXY: '0' }).config?.trustProxy, false)
  t.equal(loadConfig({ TRUST_PROXY: '2' }).config?.trustProxy, 2, 'a hop count')
  t.same(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1,fd00::/8,loopback' }).config?.trustProxy, [
    '10.0.0.0/8',
    '127.0.0.1',
    '::1',
    'fd00::/8',
    'loopback'
  ])
  for (const bad of ['true', '11', '10.0.0.0/33', 'proxy.example', '1.2.3.4/8/9']) {
    t.match(loadConfig({ TRUST_PROXY: bad }).problems, [/^TRUST_PROXY must be/], `refused: ${bad}`)
  }
})

t.test('CORS_ORIGINS must be exact origins', async (t) => {
  t.same(loadConfig({ CORS_ORIGINS: 'https://a.test, http://localhost:5173' }).config?.corsOrigins, [
    'https://a.test',
    'http://localhost:5173'
  ])
  for (const bad of ['*', 'https://a.test/', 'a.test', 'https://a.test/app', 'ftp://a.test']) {
    t.match(loadConfig({ CORS_ORIGINS: bad }).problems, [/^CORS_ORIGINS entries must be origins/], `refused: ${bad}`)
  }
})
