import { UserStore } from '@svc/core/kit'
import { withAdminDatabase } from './admin-db.js'

export async function usersSetRoles (email: string, roles: string[]): Promise<void> {
  const found = await withAdminDatabase(async ({ db }) => await new UserStore(db).setRoles(email, roles))
  if (!found) throw new Error(`no user with e-mail ${email}`)
  // New roles reach access tokens at the next login or refresh.
  process.stdout.write(`roles of ${email.trim().toLowerCase()} set to ${roles.join(',')}\n`)
}
