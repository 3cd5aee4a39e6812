import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import openapiTS, { astToString } from 'openapi-typescript'
import { getTestDb } from '@svc/testkit'
import { buildServer } from '../src/build-server.js'
import { loadConfig } from '../src/config.js'
import { exercise, type Exchange } from './api-docs/exercise.js'

const run = promisify(execFile)
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020
) => Ajv2020
const SCHEMA_DIR = fileURLToPath(new URL('../../../schema', import.meta.url))
const BIN = fileURLToPath(new URL('../node_modules/.bin/', import.meta.url))
type Doc = Record<string, any>

type Problem = { ruleId: string; message: string }

/** `@redocly/cli lint` with its recommended rules: the problems it counts as errors. */
async function redoclyErrors (doc: Doc, dir: string, name: string): Promise<Problem[]> {
  const file = join(dir, name)
  writeFileSync(file, JSON.stringify(doc))
  const { stdout } = await run(join(BIN, 'redocly'), ['lint', file, '--format=json', '--max-problems=10000'], {
    maxBuffer: 64 << 20
  }).catch((err: { stdout: string }) => err)
  const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
    problems: Array<{ ruleId: string; message: string; severity: string }>
  }
  return report.problems.filter((p) => p.severity === 'error')
}

/** openapi-typescript's types of the document, used by a strict program: tsc's output (empty when it compiles). */
async function compileTypes (openapi: Doc, dir: string): Promise<string> {
  const types = astToString(await openapiTS(structuredClone(openapi) as never))
  writeFileSync(join(dir, 'api.d.ts'), types)
  writeFileSync(
    join(dir, 'use.ts'),
    `import type { paths, components } from './api.js'
type Created = paths['/api/v1/deals']['post']['responses']['201']['content']['application/json']
type Page = paths['/api/v1/deals']['get']['responses']['200']['content']['application/json']
type Session = paths['/login']['post']['responses']['200']['content']['application/json']
type Bulk = paths['/api/v1/deals']['put']['requestBody']
const created: Created = { _id: 'x', userId: 'u', createdAt: 'c', updatedAt: 'u', title: 't', amount: 1 }
const id: string = created._id
const title: string | undefined = created.title
const page: Page = { results: [created], totalResults: 1, page: 1, perPage: 20, totalPages: 1, nextPage: null, prevPage: null, nextCursor: null }
const uncounted: Page = { ...page, totalResults: null, totalPages: null, nextCursor: 'opaque' }
const token: string = (null as unknown as Session).accessToken
const bulk: NonNullable<Bulk>['content']['application/json'] = { filter: { amount: { $lt: 100 } }, record: { probability: null } }
// @ts-expect-error: amount is a number
const wrong: Created = { ...created, amount: 'many' }
type Err = components['schemas']['ErrorEnvelope']
const err: Err = { error: { code: 'NOT_FOUND', message: 'gone' } }
export { id, title, page, uncounted, token, bulk, wrong, err }
`
  )
  const tsc = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url))
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        types: []
      },
      files: ['use.ts']
    })
  )
  const res = await run(process.execPath, [tsc, '-p', dir]).catch((err: { stdout: string; code: number }) => err)
  return (res as { stdout: string }).stdout
}

const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')

t.test('the API descriptions of the reference server hold for tools and for its real answers', async (t) => {
  const { db } = await getTestDb(t)
  const { config, problems } = loadConfig({
    JWT_SECRET: 'api-docs-test-secret-api-docs-test-secret',
    SCHEMA_DIR,
    NODE_ENV: 'test'
  })
  if (config == null) throw new Error(problems.join('; '))
  const app = await buildServer(config, { db, logger: false })
  t.teardown(async () => await app.close())
  // The reset mail, awaited by the exercise (a polled budget ran out when redocly and tsc share the CPU).
  let mailed!: (text: string) => void
  const firstMail = new Promise<string>((resolve) => {
    mailed = resolve
  })
  app.svc.mailer = async (m) => {
    mailed(m.text)
  }
  await app.ready()
  const swagger = (await app.inject({ url: '/api-docs/swagger.json' })).json() as Doc
  const openapi = (await app.inject({ url: '/api-docs/openapi.json' })).json() as Doc
  t.equal(swagger.swagger, '2.0')
  t.equal(openapi.openapi, '3.1.0')
  t.same(
    Object.keys(openapi.paths).sort(),
    Object.keys(swagger.paths).sort(),
    'both documents describe the same routes'
  )
  const dir = mkdtempSync(join(tmpdir(), 'svc-api-docs-'))
  // The tools that run as child processes (redocly, tsc) start now and work while the in-process
  // checks run (the file took 40–53 s waiting for each in turn); their subtests await them.
  const linted = Promise.all([redoclyErrors(swagger, dir, 'swagger.json'), redoclyErrors(openapi, dir, 'openapi.json')])
  const compiled = compileTypes(openapi, dir)
  // A rejection before its subtest awaits it is reported there, not as an unhandled one.
  linted.catch(() => {})
  compiled.catch(() => {})

  t.test('swagger-parser validates both', async (t) => {
    await t.resolves(SwaggerParser.validate(structuredClone(swagger) as never), 'Swagger 2.0')
    await t.resolves(SwaggerParser.validate(structuredClone(openapi) as never), 'OpenAPI 3.1')
  })

  t.test('@redocly/cli lint: no errors', async (t) => {
    const [two, three] = await linted
    t.same(two, [], 'Swagger 2.0')
    t.same(three, [], 'OpenAPI 3.1')
  })

  t.test('what the documents say', async (t) => {
    const ops = Object.entries<Doc>(openapi.paths).flatMap(([path, item]) =>
      Object.entries<Doc>(item).map(([method, op]) => ({ path, method, op }))
    )
    t.notOk(
      ops.some(({ path }) => path.includes('{*}')),
      'no path parameter named *'
    )
    t.same(
      ops
        .filter(({ op }) => typeof op.summary !== 'string' || typeof op.operationId !== 'string')
        .map(({ path }) => path),
      [],
      'summaries and operation ids'
    )
    const status = (path: string, method: string): string[] => Object.keys(openapi.paths[path][method].responses)
    t.same(status('/api/v1/deals', 'post'), ['201', 'default'])
    t.same(status('/register', 'post'), ['201', 'default'])
    t.same(status('/api/v1/webhooks', 'post'), ['201', 'default'])
    t.same(status('/auth/forgot-password', 'post'), ['202', 'default'])
    t.same(status('/api/v1/webhooks/{id}/test', 'post'), ['202', 'default'])
    const create = openapi.paths['/api/v1/deals'].post
    t.match(create.parameters, [{ in: 'header', name: 'idempotency-key' }], 'Idempotency-Key')
    const get = openapi.paths['/api/v1/deals/{id}'].get
    t.same(
      get.parameters.filter((p: Doc) => p.in === 'query').map((p: Doc) => p.name),
      ['__include', '__includeDeleted']
    )
    const agg = openapi.paths['/api/v1/deals/aggregations/{name}'].get
    t.same(
      agg.parameters.filter((p: Doc) => p.in === 'query').map((p: Doc) => [p.name, p.schema.type]),
      [
        ['minAmount', 'number'],
        ['closingAfter', 'string']
      ],
      'aggregation params'
    )
    t.match(
      openapi.paths['/api/v1/deals/{id}/contract'].post.requestBody.content['multipart/form-data'].schema.properties
        .file,
      { type: 'string', contentMediaType: 'application/octet-stream' }
    )
    t.match(
      swagger.paths['/api/v1/deals/{id}/contract'].post.parameters,
      [{ in: 'formData', name: 'file', type: 'file' }],
      'a file parameter in 2.0'
    )
    const update = openapi.paths['/api/v1/deals/{id}'].put.requestBody.content['application/json'].schema.properties
    t.same(update.currency, { type: ['string', 'null'], enum: ['USD', 'EUR', 'GBP', null] }, '3.1: null clears, typed')
    const update2 = swagger.paths['/api/v1/deals/{id}'].put.parameters.find((p: Doc) => p.in === 'body').schema
      .properties
    t.same(
      update2.currency,
      { type: 'string', enum: ['USD', 'EUR', 'GBP'], 'x-nullable': true },
      '2.0: x-nullable, no null in the enum'
    )
    const text = JSON.stringify(openapi) + JSON.stringify(swagger)
    t.notMatch(text, /"3464-99-91"/)

    // Every example a tool would send is valid for its own schema.
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
    const bodies = ops.flatMap(({ op }) => Object.values<Doc>(op.requestBody?.content ?? {}).map((m) => m.schema))
    let examples = 0
    const walk = (s: unknown): void => {
      if (typeof s !== 'object' || s === null) return
      const o = s as Doc
      for (const ex of [...(Array.isArray(o.examples) ? o.examples : []), ...('example' in o ? [o.example] : [])]) {
        examples++
        t.ok(
          ajv.validate({ ...o, examples: undefined, example: undefined }, ex),
          `example ${JSON.stringify(ex)} fits its schema`
        )
      }
      for (const v of Object.values(o)) walk(v)
    }
    bodies.forEach(walk)
    t.ok(examples > 5, `${examples} examples checked`)
    const bulk = ajv.compile(openapi.paths['/api/v1/deals'].put.requestBody.content['application/json'].schema)
    t.ok(
      bulk({ filter: { amount: { $lt: 100 } }, record: { stage: 'won', probability: null } }),
      'operator filters and null clears are accepted by the bulk body schema'
    )
  })

  t.test(
    'every JSON answer of every route fits the documented response (Ajv over the OpenAPI 3.1 document)',
    async (t) => {
      const exchanges: Exchange[] = await exercise(app, firstMail)
      const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
      ajv.addSchema({ ...openapi, $id: 'svc-openapi' } as never)
      const failures: string[] = []
      const seen = new Set<string>()
      for (const x of exchanges) {
        const op = openapi.paths[x.path]?.[x.method]
        if (op === undefined) {
          failures.push(`${x.method} ${x.path}: not documented`)
          continue
        }
        seen.add(`${x.method} ${x.path}`)
        const key = String(x.status) in op.responses ? String(x.status) : 'default'
        const media = op.responses[key].content?.['application/json']
        if (media === undefined) {
          failures.push(`${x.method} ${x.path} ${x.status}: no JSON response documented`)
          continue
        }
        const validate = ajv.getSchema(
          `svc-openapi#/${pointer('paths', x.path, x.method, 'responses', key, 'content', 'application/json', 'schema')}`
        )!
        if (!validate(x.body)) {
          failures.push(
            `${x.method} ${x.path} ${x.status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(x.body).slice(0, 300)}`
          )
        }
      }
      t.same(failures, [], `${exchanges.length} answers checked`)
      const ok = exchanges.filter((x) => x.status < 300)
      t.ok(ok.length > 70, `${ok.length} success answers`)
      t.same(
        exchanges.filter((x) => x.path === '/api/v1/deals' && x.method === 'post').map((x) => x.status),
        [201],
        'created: 201'
      )
      // Every JSON operation was called (not: GraphQL/GraphiQL, MCP's JSON-RPC, SSE, metrics, file downloads).
      const other = /^\/(graphql|graphiql|mcp|_metrics|files)|\/_events$/
      const missed = Object.entries<Doc>(openapi.paths)
        .flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`))
        .filter((k) => !seen.has(k) && !other.test(k.split(' ')[1]))
      t.same(missed, [], 'every documented JSON route was exercised')
    }
  )

  t.test('openapi-typescript output compiles and types the bodies', async (t) => {
    t.equal(await compiled, '', 'tsc --strict passes on the generated types')
  })
})
