/** arrayFilters validation as mongod does it, before any document is touched. */
import type { Document } from 'bson'
import { CommandError, Codes } from '../../errors.js'
import { isPlainDoc } from '../../bson/paths.js'

function filterIdentifier (f: Document): string {
  const ids = new Set<string>()
  const visit = (d: Document): void => {
    for (const k of Object.keys(d)) {
      if (k === '$and' || k === '$or' || k === '$nor') {
        for (const sub of Array.isArray(d[k]) ? d[k] : []) if (isPlainDoc(sub)) visit(sub)
      } else if (!k.startsWith('$')) ids.add(k.split('.')[0])
    }
  }
  visit(f)
  const list = [...ids]
  if (list.length === 0) {
    throw new CommandError(
      Codes.FailedToParse,
      'FailedToParse',
      'Cannot use an expression without a top-level field name in arrayFilters'
    )
  }
  if (list.length > 1) {
    throw new CommandError(
      Codes.FailedToParse,
      'FailedToParse',
      `Error parsing array filter :: caused by :: Expected a single top-level field name, found '${list[0]}' and '${list[1]}'`
    )
  }
  const id = list[0]
  if (!/^[a-z][a-zA-Z0-9]*$/.test(id)) {
    throw new CommandError(
      Codes.BadValue,
      'BadValue',
      `Error parsing array filter :: caused by :: The top-level field name must be an alphanumeric string beginning with a lowercase letter, found '${id}'`
    )
  }
  return id
}

export function checkArrayFilters (paths: string[], arrayFilters: Document[] | undefined): void {
  const filterIds = new Map<string, Document>()
  for (const f of arrayFilters ?? []) {
    const id = filterIdentifier(f)
    if (filterIds.has(id)) {
      throw new CommandError(
        Codes.FailedToParse,
        'FailedToParse',
        `Found multiple array filters with the same top-level field name ${id}`
      )
    }
    filterIds.set(id, f)
  }
  const used = new Set<string>()
  for (const path of paths) {
    for (const m of path.matchAll(/\$\[([^\]]*)\]/g)) {
      const id = m[1]
      if (id === '') continue
      if (!filterIds.has(id)) {
        throw new CommandError(
          Codes.BadValue,
          'BadValue',
          `No array filter found for identifier '${id}' in path '${path}'`
        )
      }
      used.add(id)
    }
  }
  for (const id of filterIds.keys()) {
    if (!used.has(id)) {
      throw new CommandError(
        Codes.FailedToParse,
        'FailedToParse',
        `The array filter for identifier '${id}' was not used in the update`
      )
    }
  }
}
