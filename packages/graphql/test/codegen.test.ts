import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { buildClientSchema, getIntrospectionQuery, parse, printSchema, type IntrospectionQuery } from 'graphql'
import { codegen } from '@graphql-codegen/core'
import * as typescriptPlugin from '@graphql-codegen/typescript'
import { buildApp, gql } from './helper.js'

const run = promisify(execFile)

// What GraphiQL's explorer and every codegen tool do first: the standard introspection query.
t.test(
  'tools: the standard introspection loads with buildClientSchema and feeds a codegen whose output compiles',
  async (t) => {
    const { app } = await buildApp(t)
    const res = await gql(app, {}, getIntrospectionQuery())
    t.equal(res.status, 200, res.errors?.[0]?.message ?? 'answered')
    const schema = buildClientSchema(res.data as IntrospectionQuery)
    t.ok(
      schema.getQueryType()?.getFields().contactsMany !== undefined,
      'the generated operations are in the client schema'
    )
    const output = await codegen({
      filename: 'svc.ts',
      schema: parse(printSchema(schema)),
      documents: [],
      config: {},
      plugins: [{ typescript: {} }],
      pluginMap: { typescript: typescriptPlugin }
    })
    const dir = mkdtempSync(join(tmpdir(), 'svc-gql-codegen-'))
    writeFileSync(join(dir, 'svc.ts'), output)
    writeFileSync(
      join(dir, 'use.ts'),
      `import type { Query } from './svc.js'
type Contact = NonNullable<Query['contactsById']>
const c = null as unknown as Contact
const id: string = c._id
// @ts-expect-error: no such field
const nope = c.noSuchField
export { id, nope }
`
    )
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
    const tsc = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url))
    const out = await run(process.execPath, [tsc, '-p', dir]).catch((err: { stdout: string }) => err)
    t.equal(out.stdout, '', 'tsc --strict passes on the generated types')
  }
)
