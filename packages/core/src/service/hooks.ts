import type { FastifyBaseLogger } from 'fastify'
import { InternalError } from '../errors.js'
import type { RequestContext } from '../identity.js'
import type { ResourceModel } from '../schema/model.js'

export type BeforeHook = 'beforeCreate' | 'beforeUpdate' | 'beforeDelete'
export type AfterHook = 'afterCreate' | 'afterUpdate' | 'afterDelete'

/** The JWT identity as hooks receive it (spec: `user_id`, `email`, `roles`, plus `account_id`). */
export interface HookUser {
  user_id: string | null
  email?: string
  roles: string[]
  account_id?: string
}

export function hookUser (ctx: RequestContext): HookUser | null {
  const id = ctx.identity
  if (id == null) return null
  return {
    user_id: id.userId,
    ...(id.email !== undefined ? { email: id.email } : {}),
    roles: [...id.roles],
    ...(id.accountId !== undefined ? { account_id: id.accountId } : {})
  }
}

/** Arguments every hook gets besides its own: `user`, `req` (undefined off HTTP) and `schema`. */
export function hookBase (model: ResourceModel, ctx: RequestContext): Record<string, unknown> {
  return { user: hookUser(ctx), req: ctx.surface === 'rest' ? ctx.req : undefined, schema: model.definition }
}

function isPlainObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date)
}

/**
 * Runs a before-hook. A returned object replaces the input, undefined (or null) keeps it; a
 * returned promise is awaited (an `async` hook is a common slip, not a reason to store a
 * Promise). A throw propagates untouched: errors with a 4xx `statusCode` become that envelope,
 * anything else becomes 500 INTERNAL through the one error table (message hidden in production).
 */
export async function runBefore (
  model: ResourceModel,
  name: BeforeHook,
  arg: Record<string, unknown>
): Promise<Record<string, unknown> | undefined> {
  const fn = model.hooks[name]
  if (fn === undefined) return undefined
  const out = await fn(arg)
  if (out === undefined || out === null) return undefined
  if (!isPlainObject(out)) {
    throw new InternalError(
      `${model.path}.${name} returned ${Array.isArray(out) ? 'an array' : typeof out}; return an object or nothing`
    )
  }
  return out
}

/**
 * After-hooks are best-effort: awaited (they run before the response, as the spec says) but a
 * throw or rejection is logged and swallowed; they never change the answer or undo the write.
 */
export async function runAfter (
  model: ResourceModel,
  name: AfterHook,
  arg: Record<string, unknown>,
  log: FastifyBaseLogger
): Promise<void> {
  const fn = model.hooks[name]
  if (fn === undefined) return
  try {
    await fn(arg)
  } catch (err) {
    log.error({ err, path: model.path, hook: name }, 'after-hook failed')
  }
}
