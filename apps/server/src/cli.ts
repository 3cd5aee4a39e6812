import { Command, InvalidArgumentError } from 'commander'
import { clientGenerate } from './commands/client-generate.js'
import { clientsCreate } from './commands/clients-create.js'
import { runStart } from './commands/start.js'
import { tokenMint } from './commands/token-mint.js'
import { usersSetRoles } from './commands/users-set-roles.js'

/** Comma-separated role names; empty entries and odd characters are refused. */
export function parseRoles (value: string): string[] {
  const roles = value.split(',').map((r) => r.trim()).filter((r) => r !== '')
  if (roles.length === 0 || !roles.every((r) => /^[A-Za-z0-9_.:-]+$/.test(r))) {
    throw new InvalidArgumentError('roles must be comma-separated names (letters, digits, _ . : -)')
  }
  return roles
}

export function buildCli (): Command {
  const program = new Command('svc').description('svc reference server and admin commands').showHelpAfterError()

  program.command('start')
    .description('start the server (embedded database in DATA_DIR unless MONGODB_URI is set)')
    .action(async () => { await runStart() })

  const token = program.command('token').description('access tokens')
  token.command('mint')
    .description('print an HS256 access token signed with JWT_SECRET (e.g. an agent SVC_BEARER)')
    .requiredOption('--user-id <id>', 'user_id claim (the tenant)')
    .requiredOption('--email <email>', 'email claim')
    .option('--roles <roles>', 'comma-separated roles', parseRoles, ['user'])
    .option('--ttl <duration>', 'lifetime: seconds or 15m, 2h, 30d', '15m')
    .option('--account-id <id>', 'account_id claim (organisation)')
    .action((opts: { userId: string, email: string, roles: string[], ttl: string, accountId?: string }) => { tokenMint(opts) })

  const users = program.command('users').description('user administration')
  users.command('set-roles')
    .description('replace the roles of the user with this e-mail')
    .argument('<email>')
    .argument('<roles>', 'comma-separated roles', parseRoles)
    .action(async (email: string, roles: string[]) => { await usersSetRoles(email, roles) })

  const clients = program.command('clients').description('api clients (X-Client-Id, read-only)')
  clients.command('create')
    .description('create an api client and print its id')
    .requiredOption('--role <role>', 'the role the client reads as')
    .option('--name <name>', 'a label for operators')
    .option('--owner <userId>', "the tenant it belongs to: reads only that user's records (then acl.scope); without it, every tenant's")
    .action(async (opts: { role: string, name?: string, owner?: string }) => { await clientsCreate(opts) })

  const client = program.command('client').description('the typed TypeScript client (@svc/client)')
  client.command('generate')
    .description('write a typed client for the loaded schemas (SCHEMA_DIR) into DIR')
    .requiredOption('--out <dir>', 'directory to write index.ts into (created if missing)')
    .option('--base-url <url>', 'default baseUrl baked into the client')
    .option('--api-version <version>', 'the API version to generate for (schema/versions/<version>)', 'v1')
    .action(async (opts: { out: string, baseUrl?: string, apiVersion?: string }) => {
      for (const file of await clientGenerate(opts)) process.stdout.write(`${file}\n`)
    })

  return program
}

/** Entry point of bin/svc.js; a failing command prints one line and exits 1. */
export async function main (argv: string[] = process.argv): Promise<void> {
  try {
    await buildCli().parseAsync(argv)
  } catch (err) {
    process.stderr.write(`svc: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  }
}
