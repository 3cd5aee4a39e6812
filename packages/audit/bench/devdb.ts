// Child process: an embedded devdb with one fresh database, so the benchmark's app and the
// database do not share an event loop. Prints the URI as one JSON line; stops on SIGTERM.
import { getTestDb } from '@svc/testkit'

const teardowns: Array<() => unknown> = []
const { uri } = await getTestDb({ teardown: (fn) => { teardowns.push(fn) } }, { name: 'svc_bench_audit' })
process.stdout.write(JSON.stringify({ uri }) + '\n')
process.on('SIGTERM', () => {
  void (async () => {
    for (const fn of teardowns) await fn()
    process.exit(0)
  })()
})
