/**
 * `$group` partitioned by BSON value, as mongod groups: `1`, `1.0`, `NumberLong(1)` and
 * `NumberDecimal("1")` are one group (whose `_id` is the first value met), a missing key is the
 * `null` group. (mingo partitions by JS equality, so it splits numbers by type and leaves `_id`
 * out for a missing key.) Accumulators are mingo's table, i.e. devdb's (number-accumulators.ts).
 */
import type { Document } from 'bson'
import { evalExpr } from 'mingo/core'
import { Lazy, type Iterator } from 'mingo/lazy'
import type { Options } from 'mingo/types'
import { CommandError } from '../errors.js'
import { isPlainDoc } from '../bson/paths.js'
import { keyString } from '../bson/key-string.js'

export function $group (coll: Iterator, expr: unknown, options: Options): Iterator {
  if (!isPlainDoc(expr) || !('_id' in expr)) {
    throw new CommandError(15955, 'Location15955', 'a group specification must include an _id')
  }
  const idExpr = expr._id
  const fields = Object.keys(expr).filter((k) => k !== '_id')
  const copts = groupOptions(options)
  return coll.transform((items: unknown[]) => {
    const groups = new Map<string, { id: unknown; members: unknown[] }>()
    for (const item of items) {
      const id = evalExpr(item, idExpr, options) ?? null
      const key = keyString(id)
      const g = groups.get(key)
      if (g === undefined) groups.set(key, { id, members: [item] })
      else g.members.push(item)
    }
    const out: Document[] = []
    for (const { id, members } of groups.values()) {
      const doc: Document = { _id: id }
      for (const f of fields) doc[f] = evalExpr(members, expr[f], copts(id))
      out.push(doc)
    }
    return Lazy(out)
  })
}

type Scoped = Options & { update: (locals: object) => Options }

/**
 * Options for a group's accumulators, with the group's `_id` where mingo's `…N` accumulators look
 * for it (an `n` may refer to it). mingo keeps its ComputeOptions class internal; the stage gets
 * an instance, whose class makes the per-group copy as mingo's own $group does.
 */
function groupOptions (options: Options): (groupId: unknown) => Options {
  const cls = (options as object).constructor as { init?: (o: Options) => Scoped }
  if (typeof cls.init !== 'function') return () => options
  const scoped = cls.init(options)
  return (groupId) => scoped.update({ root: null, groupId })
}
