// Parse Server on its default options for `bench:parse`, started from the folder where the bench
// installed it (argv: that folder, the database URI, the port). Prints its pid as JSON first (Parse
// logs its own lines to stdout after that); the bench then waits for /parse/health.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const [dir, databaseURI, port] = process.argv.slice(2)
console.log(JSON.stringify({ pid: process.pid }))
// Parse writes ./logs before it reads its options: keep them in its own folder, not the project.
process.chdir(dir)
const resolved = createRequire(join(dir, 'package.json')).resolve('parse-server')
const { ParseServer } = await import(pathToFileURL(resolved).href)
await ParseServer.startApp({
  databaseURI,
  appId: 'bench',
  masterKey: 'bench-master-key',
  port: Number(port),
  serverURL: `http://127.0.0.1:${port}/parse`,
  mountPath: '/parse',
  silent: true
})
