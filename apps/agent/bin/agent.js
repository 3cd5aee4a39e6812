#!/usr/bin/env node
// Runs the TypeScript sources directly, so `svc` works from a fresh clone without a build:
// tsx compiles on the fly, and the `@svc/source` export condition makes workspace packages
// resolve to their `src/` instead of `dist/`.
import { register } from 'node:module'
import { register as registerTsx } from 'tsx/esm/api'

const addSourceCondition = `
export async function resolve (specifier, context, next) {
  const conditions = context.conditions.includes('@svc/source') ? context.conditions : [...context.conditions, '@svc/source']
  return next(specifier, { ...context, conditions })
}`
register(`data:text/javascript,${encodeURIComponent(addSourceCondition)}`)
registerTsx()

const { main } = await import('../src/main.ts')
await main()
