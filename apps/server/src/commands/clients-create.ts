import { ApiClientStore } from '@svc/core/kit'
import { withAdminDatabase } from './admin-db.js'

/**
 * Prints only the new id on stdout, for scripts. `--owner` binds the client to a tenant (a
 * `user_id`, as in access tokens: a registered user's id or one `svc token mint` was given); no
 * user record is required, as minted tenants have none.
 */
export async function clientsCreate (opts: { role: string; name?: string; owner?: string }): Promise<void> {
  const role = opts.role.trim()
  if (!/^[A-Za-z0-9_.:-]+$/.test(role)) throw new Error('--role must be a role name (letters, digits, _ . : -)')
  const ownerId = opts.owner?.trim()
  if (ownerId !== undefined && !/^[A-Za-z0-9_.:@-]{1,128}$/.test(ownerId)) {
    throw new Error('--owner must be a user id (1–128 letters, digits, _ . : @ -)')
  }
  const client = await withAdminDatabase(
    async ({ db }) =>
      await new ApiClientStore(db).create({ role, name: opts.name, ...(ownerId !== undefined ? { ownerId } : {}) })
  )
  process.stdout.write(`${client._id}\n`)
}
