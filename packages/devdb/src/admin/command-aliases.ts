/**
 * mongod looks command names up case-sensitively; a few commands are registered under a second,
 * lower-case name (the driver's `admin().buildInfo()` sends `buildinfo`). These are mongod 7.0's,
 * for the commands devdb has.
 */
const GROUPS = [
  ['buildInfo', 'buildinfo'],
  ['collStats', 'collstats'],
  ['dbStats', 'dbstats'],
  ['findAndModify', 'findandmodify'],
  ['hello', 'isMaster', 'ismaster'],
  ['dropIndexes', 'deleteIndexes']
]

const CANONICAL = new Map<string, string>()
for (const group of GROUPS) for (const name of group) CANONICAL.set(name, group[0])

/** Whether two names run the same command (a name and its aliases). */
export function sameCommand (a: string, b: string): boolean {
  return a === b || (CANONICAL.get(a) ?? a) === (CANONICAL.get(b) ?? b)
}

/** The lower-case aliases of `commands` (name → handler), to register beside them. */
export function withAliases<T> (commands: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = { ...commands }
  for (const group of GROUPS) {
    const handler = commands[group[0]]
    if (handler !== undefined) for (const alias of group.slice(1)) out[alias] ??= handler
  }
  return out
}
