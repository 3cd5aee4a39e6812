import {
  GraphQLEnumType,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLInputType
} from 'graphql'
import { type RecordJson } from '@svc/core'
import { BULK_WRITE_PRICE } from '@svc/core/kit'
import type { Catalog, Fields, ModelTypes } from '../schema/catalog.js'
import { capitalize, isGraphqlName, opPrefix, typeName } from '../schema/names.js'
import { toCoreFilter } from '../schema/filter-inputs.js'
import { idArg } from './args.js'
import { costHint } from '../cost/hints.js'

type Args = Record<string, unknown>

/** GraphQL input objects have no prototype; the service gets plain objects and arrays. */
function plain (v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain)
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
  return v
}

const BulkPayload = new GraphQLObjectType({
  name: 'BulkPayload',
  fields: { numAffected: { type: new GraphQLNonNull(GraphQLInt) } }
})

const payloads = new WeakMap<ModelTypes, { one: GraphQLObjectType; many: GraphQLObjectType }>()

/** `<Type>Payload { recordId, record }` (CONTRACT) and `<Type>ManyPayload { recordIds, records }`. */
function payloadsOf (t: ModelTypes): { one: GraphQLObjectType; many: GraphQLObjectType } {
  let p = payloads.get(t)
  if (p !== undefined) return p
  const name = typeName(t.model)
  p = {
    one: new GraphQLObjectType({
      name: `${name}Payload`,
      fields: { recordId: { type: new GraphQLNonNull(GraphQLID) }, record: { type: t.record } }
    }),
    many: new GraphQLObjectType({
      name: `${name}ManyPayload`,
      fields: {
        recordIds: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLID))) },
        records: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t.record))) }
      }
    })
  }
  payloads.set(t, p)
  return p
}

function one (record: RecordJson): { recordId: string; record: RecordJson } {
  return { recordId: record._id, record }
}

/**
 * Create, update and delete mutations with the spec's names. `CreateOne`, `UpdateById` and
 * `RemoveById` fire the schema's hooks; `CreateMany`, `UpdateOne`, `UpdateMany` and
 * `RemoveMany` do not (spec hook table) — the service decides, per operation.
 */
export function writeMutations (c: Catalog, t: ModelTypes): Fields {
  if (t.input === null) return {}
  const p = opPrefix(t.model)
  const { service } = t
  const record = { type: new GraphQLNonNull(t.input) }
  const { one: Payload, many: ManyPayload } = payloadsOf(t)
  return {
    [`${p}CreateOne`]: {
      type: Payload,
      description: `Create one ${t.model.path} record (hooks run). With idempotencyKey, a retry answers the first record`,
      args: { record, idempotencyKey: { type: GraphQLString } },
      resolve: async (_r, a: Args, ctx) =>
        one(
          await service.create(
            ctx.svc,
            plain(a.record),
            typeof a.idempotencyKey === 'string' ? { idempotencyKey: a.idempotencyKey } : {}
          )
        )
    },
    [`${p}CreateMany`]: {
      type: ManyPayload,
      description: 'Create several records (no hooks); one invalid record creates none',
      args: { records: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t.input))) } },
      ...costHint({ kind: 'batch', arg: 'records' }),
      resolve: async (_r, a: Args, ctx) => {
        const records = await service.createMany(ctx.svc, plain(a.records) as unknown[])
        return { recordIds: records.map((r) => r._id), records }
      }
    },
    [`${p}UpdateById`]: {
      type: Payload,
      description:
        'Change fields of one record (hooks run); null clears an optional field; a state field moves only along its transitions',
      args: { ...idArg, record },
      resolve: async (_r, a: Args, ctx) => one(await service.updateById(ctx.svc, a._id as string, plain(a.record)))
    },
    [`${p}UpdateOne`]: {
      type: Payload,
      description:
        'Change the first record matching filter, in sort order after skip (no hooks); NOT_FOUND when none matches',
      args: {
        filter: { type: t.filter },
        sort: { type: new GraphQLList(new GraphQLNonNull(t.sort)) },
        skip: { type: GraphQLInt },
        record
      },
      resolve: async (_r, a: Args, ctx) => {
        const filter = toCoreFilter(t.model, plain(a.filter) as Args | undefined)
        return one(
          await service.updateOne(
            ctx.svc,
            { filter, sort: a.sort as string[] | undefined, skip: a.skip as number | undefined },
            plain(a.record)
          )
        )
      }
    },
    [`${p}UpdateMany`]: {
      type: BulkPayload,
      description: 'Set fields on every record of the caller matching filter (no hooks, state fields refused)',
      args: { filter: { type: new GraphQLNonNull(t.filter) }, record },
      ...costHint({ kind: 'flat', price: BULK_WRITE_PRICE }),
      resolve: async (_r, a: Args, ctx) =>
        await service.bulkPut(ctx.svc, toCoreFilter(t.model, plain(a.filter) as Args) ?? {}, plain(a.record), {
          upsert: false
        })
    },
    [`${p}RemoveById`]: {
      type: Payload,
      description: c.softDelete(t.model)
        ? `Delete one record (hooks run); restorable with ${p}Restore`
        : 'Delete one record for good (hooks run)',
      args: idArg,
      resolve: async (_r, a: Args, ctx) => one(await service.deleteById(ctx.svc, a._id as string))
    },
    [`${p}RemoveMany`]: {
      type: BulkPayload,
      description: 'Delete every record of the caller matching filter (no hooks)',
      args: { filter: { type: new GraphQLNonNull(t.filter) } },
      ...costHint({ kind: 'flat', price: BULK_WRITE_PRICE }),
      resolve: async (_r, a: Args, ctx) =>
        await service.deleteMany(ctx.svc, toCoreFilter(t.model, plain(a.filter) as Args) ?? {})
    }
  }
}

/** `<path>Restore` (soft delete only): a tombstone back to live; no afterUpdate, an audit row, `<path>.updated`. */
export function restoreMutation (c: Catalog, t: ModelTypes): Fields {
  const restore = c.restore
  if (restore === undefined || !c.softDelete(t.model)) return {}
  return {
    [`${opPrefix(t.model)}Restore`]: {
      type: payloadsOf(t).one,
      description: `Bring back a deleted ${t.model.path} record; NOT_FOUND for a live, unknown or foreign one`,
      args: idArg,
      resolve: async (_r, a: Args, ctx) => one(await restore(ctx.svc, t.model.path, a._id as string, t.model.version))
    }
  }
}

/** `to` as an enum of the machine's states when GraphQL can name them all, else a string. */
function stateType (t: ModelTypes, field: string, states: readonly string[]): GraphQLInputType {
  if (!states.every(isGraphqlName)) return GraphQLString
  return new GraphQLEnumType({
    name: `${typeName(t.model)}${capitalize(field)}State`,
    values: Object.fromEntries(states.map((s) => [s, { value: s }]))
  })
}

/** `<path>Transition<Field>(_id, to)` per state field: the transition table applies, only `onEnter` runs. */
export function transitionMutations (t: ModelTypes): Fields {
  const out: Fields = {}
  for (const [field, sm] of Object.entries(t.model.stateMachines)) {
    if (!isGraphqlName(field)) continue
    out[`${opPrefix(t.model)}Transition${capitalize(field)}`] = {
      type: payloadsOf(t).one,
      description: `Move ${field} to another state; INVALID_TRANSITION unless it is in availableTransitions`,
      args: { ...idArg, to: { type: new GraphQLNonNull(stateType(t, field, sm.states)) } },
      resolve: async (_r, a: Args, ctx) => one(await t.service.transition(ctx.svc, a._id as string, field, a.to))
    }
  }
  return out
}
