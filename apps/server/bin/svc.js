#!/usr/bin/env node
// Runs the compiled CLI (`dist/`, built at install by the root `prepare` script): no TypeScript
// compiler on the start-up path. Without a build (or with SVC_FROM_SOURCE=1, while editing the
// sources) it runs `src/` through tsx instead, the `@svc/source` export condition making the
// workspace packages resolve to their `src/` too.
import { existsSync } from 'node:fs'
import { register } from 'node:module'

const compiled = new URL('../dist/cli.js', import.meta.url)

async function fromSource () {
  const { register: registerTsx } = await import('tsx/esm/api')
  const addSourceCondition = `
export async function resolve (specifier, context, next) {
  const conditions = context.conditions.includes('@svc/source') ? context.conditions : [...context.conditions, '@svc/source']
  return next(specifier, { ...context, conditions })
}`
  register(`data:text/javascript,${encodeURIComponent(addSourceCondition)}`)
  registerTsx()
  return await import('../src/cli.ts')
}

const { main } =
  process.env.SVC_FROM_SOURCE !== '1' && existsSync(compiled) ? await import(compiled.href) : await fromSource()
await main(process.argv)
