import type { Document } from 'mongodb'
import type { Issue } from '../errors.js'
import type { FieldModel, ResourceModel } from '../schema/model.js'
import { SYSTEM_FIELD_SET } from '../schema/model.js'
import { toJson } from '../values/convert.js'
import { checkInput, type PreparedInput } from './input.js'

export interface StoredCheck {
  /** Every way the record does not fit the model; empty when it fits. */
  issues: Issue[]
  /** The declared fields as the service would store them (dates converted, lowercased, defaults applied). */
  prepared: PreparedInput
}

function isObject (v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** `lowercase` lowercases input silently, so a stored value with capitals is only found by looking. */
function lowercaseIssues (fields: FieldModel[], value: Record<string, unknown>, prefix: string, out: Issue[]): void {
  for (const f of fields) {
    const v = value[f.name]
    const path = prefix === '' ? f.name : `${prefix}.${f.name}`
    if (typeof v === 'string' && f.kind === 'string' && f.lowercase && v !== v.toLowerCase()) {
      out.push({ field: path, message: 'is not lowercase' })
    }
    if (f.kind === 'object' && isObject(v)) lowercaseIssues(f.fields!, v, path, out)
    if (f.kind === 'array' && Array.isArray(v)) {
      const items = f.items!
      v.forEach((x, i) => {
        if (typeof x === 'string' && items.kind === 'string' && items.lowercase && x !== x.toLowerCase()) {
          out.push({ field: `${path}.${i}`, message: 'is not lowercase' })
        }
        if (items.kind === 'object' && isObject(x)) lowercaseIssues(items.fields!, x, `${path}.${i}`, out)
      })
    }
  }
}

const hasLowercase = new WeakMap<ResourceModel, boolean>()
function anyLowercase (model: ResourceModel): boolean {
  let found = hasLowercase.get(model)
  if (found === undefined) {
    found = [...model.fieldsByPath.values()].some((f) => f.lowercase)
    hasLowercase.set(model, found)
  }
  return found
}

/**
 * Does a stored record (BSON or its JSON form) fit the model? The service's own create
 * validation (`checkInput`, strict: unknown fields are issues, required, types, enum, min,
 * nested, defaults filling what is missing) on the record without its stamped fields, plus
 * stored strings a `lowercase` field would have lowercased. Computed and File fields are the
 * service's to write and are not judged.
 */
export function checkStoredRecord (model: ResourceModel, doc: Document): StoredCheck {
  const json = toJson<Record<string, unknown>>(doc)
  const input: Record<string, unknown> = {}
  for (const k of Object.keys(json)) if (!SYSTEM_FIELD_SET.has(k)) input[k] = json[k]
  const { prepared, issues } = checkInput(model, input, 'create', { strict: true })
  if (anyLowercase(model)) lowercaseIssues(model.fields, input, '', issues)
  return { issues, prepared }
}

/** An issue's field as a declared path: array positions dropped (`lineItems.3.sku` → `lineItems.sku`). */
export function issuePath (field: string): string {
  return field
    .split('.')
    .filter((p) => !/^\d+$/.test(p))
    .join('.')
}
