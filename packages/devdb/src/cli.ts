/** `svc-devdb --dbpath DIR --port N --host H [--replSet NAME | --standalone] [--enableTestCommands]`: prints the URI, stops cleanly on SIGINT/SIGTERM. */
import { startDevDb, type DevDbOptions } from './server.js'

const USAGE =
  'usage: svc-devdb [--dbpath DIR] [--port N] [--host H] [--replSet NAME | --standalone] [--enableTestCommands | --setParameter enableTestCommands=1]'

export function parseArgs (argv: string[]): DevDbOptions {
  const opts: DevDbOptions = { port: 27017 }
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined]
    const value = (): string => {
      const v = inline ?? argv[++i]
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`)
      return v
    }
    switch (flag) {
      case '--dbpath':
        opts.dbPath = value()
        break
      case '--port': {
        const p = Number(value())
        if (!Number.isInteger(p) || p < 0 || p > 65535) throw new Error(`invalid --port\n${USAGE}`)
        opts.port = p
        break
      }
      case '--host':
      case '--bind_ip':
        opts.host = value()
        break
      case '--enableTestCommands':
        opts.enableTestCommands = true
        break
      case '--setParameter': {
        // mongod's spelling of the same switch; devdb has no other startup parameter
        const v = value()
        if (v !== 'enableTestCommands=1' && v !== 'enableTestCommands=true') {
          throw new Error(`unsupported --setParameter ${v}\n${USAGE}`)
        }
        opts.enableTestCommands = true
        break
      }
      case '--replSet':
        opts.replSet = value()
        break
      case '--standalone':
        opts.replSet = false
        break
      case '--help':
      case '-h':
        process.stdout.write(USAGE + '\n')
        process.exit(0)
        break
      default:
        throw new Error(`unknown option ${flag}\n${USAGE}`)
    }
  }
  return opts
}

export async function main (argv = process.argv.slice(2)): Promise<void> {
  let opts: DevDbOptions
  try {
    opts = parseArgs(argv)
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(2)
  }
  const db = await startDevDb(opts)
  process.stdout.write(db.uri + '\n')
  let stopping = false
  const stop = (): void => {
    if (stopping) return
    stopping = true
    db.stop().then(
      () => {
        process.exit(0)
      },
      (e) => {
        process.stderr.write(`svc-devdb: error while stopping: ${String(e)}\n`)
        process.exit(1)
      }
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}
