import { Command, InvalidArgumentError } from 'commander'

// Each command's module is imported when it runs: `svc start` loads none of the admin commands'
// dependencies (the typed-client generator, migrations, the admin database helpers).

/** Comma-separated role names; empty entries and odd characters are refused. */
export function parseRoles (value: string): string[] {
  const roles = value
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '')
  if (roles.length === 0 || !roles.every((r) => /^[A-Za-z0-9_.:-]+$/.test(r))) {
    throw new InvalidArgumentError('roles must be comma-separated names (letters, digits, _ . : -)')
  }
  return roles
}

export function buildCli (): Command {
  // Positional: `svc token --roles …` and `svc token mint --roles …` are each their own command's option.
  const program = new Command('svc')
    .description('svc reference server and admin commands')
    .showHelpAfterError()
    .enablePositionalOptions()

  program
    .command('start')
    .description('start the server (embedded database in DATA_DIR unless MONGODB_URI is set)')
    .action(async () => {
      const { runStart } = await import('./commands/start.js')
      await runStart()
    })

  program
    .command('reload')
    .description("replace the running server's workers one at a time, without a failed request (SVC_WORKERS above 1)")
    .action(async () => {
      const { reload } = await import('./commands/reload.js')
      process.stdout.write(`reload requested from svc primary ${await reload(process.env)}\n`)
    })

  const token = program
    .command('token')
    .enablePositionalOptions()
    .description("access tokens; with --user: the agent's SVC_BEARER for a person of the running server")
    .option('--user <email>', 'the person the token acts as (they sign in with --password)')
    .option('--password <password>', 'their password (or SVC_PASSWORD)')
    .option('--roles <roles>', 'comma-separated roles of the token', parseRoles, ['agent'])
    .option('--ttl <duration>', 'lifetime: seconds or 15m, 2h, 30d', '30d')
    .option('--url <url>', 'the running server (default PUBLIC_BASE_URL, else http://127.0.0.1:PORT)')
    .action(
      async (opts: { user?: string; password?: string; roles: string[]; ttl: string; url?: string }, cmd: Command) => {
        if (opts.user == null) {
          cmd.help({ error: true })
          return
        }
        const { tokenForUser } = await import('./commands/token-for-user.js')
        process.stdout.write(`${await tokenForUser({ ...opts, user: opts.user })}\n`)
      }
    )
  token
    .command('mint')
    .description('print an HS256 access token signed with JWT_SECRET (e.g. an agent SVC_BEARER)')
    .requiredOption('--user-id <id>', 'user_id claim (the tenant)')
    .requiredOption('--email <email>', 'email claim')
    .option('--roles <roles>', 'comma-separated roles', parseRoles, ['user'])
    .option('--ttl <duration>', 'lifetime: seconds or 15m, 2h, 30d', '15m')
    .option('--account-id <id>', 'account_id claim (organisation)')
    .action(async (opts: { userId: string; email: string; roles: string[]; ttl: string; accountId?: string }) => {
      const { tokenMint } = await import('./commands/token-mint.js')
      tokenMint(opts)
    })

  const users = program.command('users').description('user administration')
  users
    .command('set-roles')
    .description('replace the roles of the user with this e-mail')
    .argument('<email>')
    .argument('<roles>', 'comma-separated roles', parseRoles)
    .action(async (email: string, roles: string[]) => {
      const { usersSetRoles } = await import('./commands/users-set-roles.js')
      await usersSetRoles(email, roles)
    })

  const clients = program.command('clients').description('api clients (X-Client-Id, read-only)')
  clients
    .command('create')
    .description('create an api client and print its id')
    .requiredOption('--role <role>', 'the role the client reads as')
    .option('--name <name>', 'a label for operators')
    .option(
      '--owner <userId>',
      "the tenant it belongs to: reads only that user's records (then acl.scope); without it, every tenant's"
    )
    .action(async (opts: { role: string; name?: string; owner?: string }) => {
      const { clientsCreate } = await import('./commands/clients-create.js')
      await clientsCreate(opts)
    })

  const client = program.command('client').description('the typed TypeScript client (@svc/client)')
  client
    .command('generate')
    .description('write a typed client for the loaded schemas (SCHEMA_DIR) into DIR')
    .requiredOption('--out <dir>', 'directory to write index.ts into (created if missing)')
    .option('--base-url <url>', 'default baseUrl baked into the client')
    .option('--api-version <version>', 'the API version to generate for (schema/versions/<version>)', 'v1')
    .action(async (opts: { out: string; baseUrl?: string; apiVersion?: string }) => {
      const { clientGenerate } = await import('./commands/client-generate.js')
      for (const file of await clientGenerate(opts)) process.stdout.write(`${file}\n`)
    })

  const schema = program
    .command('schema')
    .description('schema evolution: the files against the stored data, and migrations')
  schema
    .command('plan')
    .description(
      'compare SCHEMA_DIR with the schemas the database was last served with; count the stored records each change leaves not fitting (exit 3 when a production start would refuse)'
    )
    .option('--exact', 'read every record instead of a sample (bounded by --max-seconds)')
    .option('--sample <n>', 'records sampled per resource', positiveInt, 5000)
    .option('--max-seconds <s>', 'time bound of the record checks', positiveInt, 60)
    .option('--json', 'print the plan as JSON')
    .action(async (opts: { exact?: boolean; sample: number; maxSeconds: number; json?: boolean }) => {
      const { schemaPlan } = await import('./commands/schema-plan.js')
      process.exitCode = await schemaPlan(opts)
    })
  schema
    .command('apply')
    .description('run the pending migrations of SCHEMA_DIR/migrations (resumable; stop the embedded server first)')
    .option('--dry-run', 'compute everything, write nothing; print before/after samples')
    .option('--batch-size <n>', 'records per batch (at most 1000)', positiveInt, 500)
    .option('--rate <n>', 'at most this many records read per second (0: unthrottled)', wholeNumber, 2000)
    .option('--tenant <userId>', 'only this tenant (a canary); the migrations stay pending')
    .option('--samples <n>', 'dry run: changed records to show', positiveInt, 5)
    .option('--json', 'JSON progress lines and result even on a terminal')
    .action(
      async (opts: {
        dryRun?: boolean
        batchSize: number
        rate: number
        tenant?: string
        samples: number
        json?: boolean
      }) => {
        const { schemaApply } = await import('./commands/schema-apply.js')
        process.exitCode = await schemaApply(opts)
      }
    )

  return program
}

function wholeNumber (value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number')
  return Number(value)
}

function positiveInt (value: string): number {
  const n = wholeNumber(value)
  if (n < 1) throw new InvalidArgumentError('must be at least 1')
  return n
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
