import { isDeepStrictEqual } from 'node:util'
import type { ResourceSnapshot, SchemaSnapshot } from '../schema/snapshot.js'
import type { SchemaChange } from './changes.js'
import { diffFields } from './diff-fields.js'

const indexLabel = (spec: Record<string, 1 | -1>): string => JSON.stringify(spec)

/** Index, relation, aggregation and flag changes of one resource. */
function resourceChanges (
  b: ResourceSnapshot,
  a: ResourceSnapshot
): Array<Omit<SchemaChange, 'resource' | 'collection'>> {
  const out: Array<Omit<SchemaChange, 'resource' | 'collection'>> = []
  for (const spec of a.compositeIndexes) {
    if (b.compositeIndexes.some((x) => isDeepStrictEqual(x, spec))) continue
    out.push({
      kind: 'index-added',
      class: 'needs-index',
      needsVersion: false,
      index: spec,
      message: `unique index ${indexLabel(spec)} added: built at start-up, refused by existing duplicates`
    })
  }
  for (const spec of b.compositeIndexes) {
    if (a.compositeIndexes.some((x) => isDeepStrictEqual(x, spec))) continue
    out.push({
      kind: 'index-removed',
      class: 'safe',
      needsVersion: false,
      index: spec,
      message: `unique index ${indexLabel(spec)} removed from the file (the collection keeps it until it is dropped by hand)`
    })
  }
  if (b.softDelete && !a.softDelete) {
    out.push({
      kind: 'soft-delete-off',
      class: 'needs-data',
      needsVersion: true,
      message: 'soft delete turned off: stored tombstones become live records (purge or restore them first)'
    })
  }
  if (!b.softDelete && a.softDelete) {
    out.push({ kind: 'soft-delete-on', class: 'safe', needsVersion: false, message: 'soft delete turned on' })
  }
  if (b.audit !== a.audit) {
    out.push({
      kind: 'audit-changed',
      class: 'safe',
      needsVersion: !a.audit,
      message: `audit turned ${a.audit ? 'on' : 'off'}`
    })
  }
  for (const r of b.relations.filter((x) => !a.relations.includes(x))) {
    out.push({ kind: 'relation-removed', class: 'needs-version', needsVersion: true, message: `relation ${r} removed` })
  }
  for (const r of a.relations.filter((x) => !b.relations.includes(x))) {
    out.push({ kind: 'relation-added', class: 'safe', needsVersion: false, message: `relation ${r} added` })
  }
  for (const g of b.aggregations.filter((x) => !a.aggregations.includes(x))) {
    out.push({
      kind: 'aggregation-removed',
      class: 'needs-version',
      needsVersion: true,
      message: `aggregation ${g} removed`
    })
  }
  for (const g of a.aggregations.filter((x) => !b.aggregations.includes(x))) {
    out.push({ kind: 'aggregation-added', class: 'safe', needsVersion: false, message: `aggregation ${g} added` })
  }
  return out
}

/**
 * Every change from `before` (the served snapshot) to `after` (the files). A resource is matched
 * by `<version>/<path>`; one that appears under a new version is compared with the same path of
 * the version it comes from (beside it: `version-added`, instead of it: `version-moved`), so a
 * v2 is judged against the records v1 left. In a new version the field changes break nobody:
 * `needsVersion` is what the version already does.
 */
export function diffSnapshots (before: SchemaSnapshot, after: SchemaSnapshot): SchemaChange[] {
  const out: SchemaChange[] = []
  const old = new Map(before.resources.map((r) => [r.key, r]))
  const current = new Set(after.resources.map((r) => r.key))
  const moved = new Set<string>()
  for (const a of after.resources) {
    const at = (c: Omit<SchemaChange, 'resource' | 'collection'>): SchemaChange => ({
      resource: a.key,
      collection: a.collection,
      ...c
    })
    let b = old.get(a.key)
    let versioned = false
    if (b === undefined) {
      b = before.resources.filter((r) => r.path === a.path).sort((x, y) => (x.version < y.version ? 1 : -1))[0]
      if (b === undefined) {
        out.push(
          at({
            kind: 'resource-added',
            class: 'safe',
            needsVersion: false,
            message: `resource ${a.key} added (collection ${a.collection})`
          })
        )
        continue
      }
      versioned = true
      const beside = current.has(b.key)
      if (!beside) moved.add(b.key)
      out.push(
        at(
          beside
            ? {
                kind: 'version-added',
                class: 'safe',
                needsVersion: false,
                message: `${a.key} added beside ${b.key}${a.collection === b.collection ? ` (both serve collection ${a.collection})` : ''}`
              }
            : {
                kind: 'version-moved',
                class: 'needs-version',
                needsVersion: true,
                message: `${a.path} moved from ${b.version} to ${a.version}: the ${b.version} routes are gone`
              }
        )
      )
    }
    if (b.collection !== a.collection) {
      out.push(
        at({
          kind: 'collection-changed',
          class: 'needs-data',
          needsVersion: false,
          message: `collection ${b.collection} → ${a.collection}: records stored in ${b.collection} are no longer served`
        })
      )
    }
    const changes = [...diffFields('', b.fields, a.fields), ...resourceChanges(b, a)]
    for (const c of changes) {
      out.push(at(versioned ? { ...c, needsVersion: false, class: c.class === 'needs-version' ? 'safe' : c.class } : c))
    }
  }
  for (const b of before.resources) {
    if (current.has(b.key) || moved.has(b.key)) continue
    out.push({
      resource: b.key,
      collection: b.collection,
      kind: 'resource-removed',
      class: 'needs-version',
      needsVersion: true,
      message: `resource ${b.key} removed: its routes are gone, its records stay in ${b.collection}`
    })
  }
  return out
}

/**
 * Field ACL is per version, and a version returns every stored field it does not restrict: a
 * field the new version hides from some roles must be hidden the same way in the one beside it.
 */
export function aclGaps (files: SchemaSnapshot): SchemaChange[] {
  const out: SchemaChange[] = []
  for (const a of files.resources) {
    for (const sibling of files.resources) {
      if (sibling.key !== a.key && sibling.collection === a.collection) out.push(...gaps(a, sibling))
    }
  }
  return out
}

function gaps (a: ResourceSnapshot, sibling: ResourceSnapshot): SchemaChange[] {
  const out: SchemaChange[] = []
  for (const f of a.fields) {
    if (f.readRoles === undefined) continue
    const there = sibling.fields.find((x) => x.name === f.name)
    if (there?.readRoles !== undefined && there.readRoles.every((r) => f.readRoles!.includes(r))) continue
    out.push({
      resource: sibling.key,
      collection: sibling.collection,
      kind: 'acl-gap',
      class: 'needs-version',
      needsVersion: false,
      field: f.name,
      message: `${f.name} is readable by ${JSON.stringify(f.readRoles)} only in ${a.key}, but ${sibling.key} returns it to every reader of the same records: give it the same acl.read there`
    })
  }
  return out
}

/** The collection a changed resource's records were stored in, when it changed. */
export function previousCollection (before: SchemaSnapshot, change: SchemaChange): string | undefined {
  const [version, path] = change.resource.split('/')
  const b =
    before.resources.find((r) => r.key === change.resource) ??
    before.resources.filter((r) => r.path === path && r.version !== version)[0]
  return b?.collection
}
