import { ApiClientStore } from '@svc/core'
import { withAdminDatabase } from './admin-db.js'

/** Prints only the new id on stdout, for scripts. */
export async function clientsCreate (opts: { role: string, name?: string }): Promise<void> {
  const role = opts.role.trim()
  if (!/^[A-Za-z0-9_.:-]+$/.test(role)) throw new Error('--role must be a role name (letters, digits, _ . : -)')
  const client = await withAdminDatabase(async ({ db }) => await new ApiClientStore(db).create({ role, name: opts.name }))
  process.stdout.write(`${client._id}\n`)
}
