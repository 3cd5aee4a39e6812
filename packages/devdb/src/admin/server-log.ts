/**
 * devdb's own log lines in mongod's structured (JSON) format, kept in memory for `getLog`: the
 * last 1024 lines (`global`, mongod's RamLog size) and the warnings of the start
 * (`startupWarnings`). devdb writes them nowhere else.
 */
import { EJSON, type Document } from 'bson'
import { Codes } from '../errors.js'
import { adminError } from './error-codes.js'
import { typeLabel } from '../commands/args.js'

const MAX_LINES = 1024

export interface LogEntry {
  /** mongod's message id for the same event */
  id: number
  /** severity: I(nfo), W(arning), E(rror) */
  s?: 'I' | 'W' | 'E'
  /** component: NETWORK, COMMAND, CONTROL, REPL… */
  c: string
  ctx: string
  msg: string
  attr?: Document
  tags?: string[]
}

class RamLog {
  readonly lines: string[] = []
  written = 0

  push (line: string): void {
    this.lines.push(line)
    this.written++
    if (this.lines.length > MAX_LINES) this.lines.shift()
  }
}

export class ServerLog {
  private readonly logs = { global: new RamLog(), startupWarnings: new RamLog() }

  write (e: LogEntry): void {
    const line: Document = {
      t: { $date: new Date().toISOString() },
      s: e.s ?? 'I',
      c: e.c,
      id: e.id,
      ctx: e.ctx,
      msg: e.msg
    }
    if (e.attr !== undefined) line.attr = e.attr
    if (e.tags !== undefined) line.tags = e.tags
    const text = EJSON.stringify(line, { relaxed: true })
    this.logs.global.push(text)
    if (e.tags?.includes('startupWarnings') === true) this.logs.startupWarnings.push(text)
  }

  /** `getLog`: `'*'` names the logs, a name gives its lines (of the context it reads the database only). */
  readonly getLog = (cmd: Document, ctx: { db: string }): Document => {
    if (ctx.db !== 'admin') throw adminError(Codes.Unauthorized, 'getLog may only be run against the admin database.')
    const name: unknown = cmd.getLog
    if (typeof name !== 'string') {
      throw adminError(
        Codes.TypeMismatch,
        `BSON field 'getLog' is the wrong type '${typeLabel(name)}', expected type 'string'`
      )
    }
    if (name === '*') return { names: Object.keys(this.logs), ok: 1 }
    const log = Object.prototype.hasOwnProperty.call(this.logs, name)
      ? this.logs[name as keyof ServerLog['logs']]
      : undefined
    if (log === undefined) throw adminError(96, `No log named '${name}'`)
    return { totalLinesWritten: log.written, log: [...log.lines], ok: 1 }
  }
}
