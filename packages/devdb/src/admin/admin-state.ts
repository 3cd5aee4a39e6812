/** What the administration commands keep per server: connections and operations, log, latency, fail points. */
import { Operations, type ClientInfo } from './operations.js'
import { ServerLog } from './server-log.js'
import { LatencyStats } from './latency.js'
import { FailPoints } from './failpoints.js'

export interface AdminOptions {
  /** mongod's enableTestCommands: `configureFailPoint` is offered */
  enableTestCommands: boolean
  dbPath?: string
}

export class AdminState {
  readonly ops = new Operations()
  readonly log = new ServerLog()
  readonly latency = new LatencyStats()
  /** present only with test commands enabled */
  readonly failPoints?: FailPoints
  readonly dbPath?: string

  constructor (opts: AdminOptions) {
    if (opts.enableTestCommands) this.failPoints = new FailPoints()
    this.dbPath = opts.dbPath
  }

  /** mongod's start lines: the warnings that apply to devdb, then where it listens. */
  started (port: number): void {
    this.log.write({
      id: 22120,
      s: 'W',
      c: 'CONTROL',
      ctx: 'initandlisten',
      msg: 'Access control is not enabled for the database. Read and write access to data and configuration is unrestricted',
      tags: ['startupWarnings']
    })
    this.log.write({
      id: 23016,
      c: 'NETWORK',
      ctx: 'listener',
      msg: 'Waiting for connections',
      attr: { port, ssl: 'off' }
    })
  }

  connected (connectionId: number, remote: string, connectionCount: number): ClientInfo {
    this.log.write({
      id: 22943,
      c: 'NETWORK',
      ctx: 'listener',
      msg: 'Connection accepted',
      attr: { remote, connectionId, connectionCount }
    })
    return this.ops.connect(connectionId, remote)
  }

  disconnected (connectionId: number, connectionCount: number): void {
    const remote = this.ops.clients.get(connectionId)?.remote
    this.ops.disconnect(connectionId)
    this.log.write({
      id: 22944,
      c: 'NETWORK',
      ctx: `conn${connectionId}`,
      msg: 'Connection ended',
      attr: { remote, connectionId, connectionCount }
    })
  }
}
