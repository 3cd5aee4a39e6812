import type { GraphQLEnumType, GraphQLFieldConfigMap, GraphQLInputObjectType, GraphQLObjectType } from 'graphql'
import type { ResourceService, SvcContext } from '@svc/core'
import type { ResourceModel } from '@svc/core/kit'
import type { AuditApi } from '@svc/audit'
import type { SoftDeleteApi } from '@svc/softdelete'
import type { GqlContext } from '../types.js'
import { filterInput, sortEnum } from './filter-inputs.js'
import { recordInput } from './inputs.js'
import { recordType, type RelationFields } from './records.js'

/** The generated types of one schema. */
export interface ModelTypes {
  model: ResourceModel
  service: ResourceService
  record: GraphQLObjectType
  input: GraphQLInputObjectType | null
  filter: GraphQLInputObjectType
  sort: GraphQLEnumType
}

export type Fields = GraphQLFieldConfigMap<unknown, GqlContext>

/** What every operation builder reads: the registry, which optional plugins are loaded, the types. */
export class Catalog {
  readonly svc: SvcContext
  readonly types = new Map<string, ModelTypes>()

  constructor (svc: SvcContext, relations: (c: Catalog) => RelationFields) {
    this.svc = svc
    const relationFields = relations(this)
    for (const service of svc.services.all()) {
      const { model } = service
      this.types.set(model.key, {
        model,
        service,
        record: recordType(model, { softDelete: this.softDelete(model), relations: relationFields }),
        input: recordInput(model),
        filter: filterInput(model),
        sort: sortEnum(model)
      })
    }
  }

  /** Effective only when the schema keeps the feature on and its plugin is loaded (as `_describe` says). */
  softDelete (model: ResourceModel): boolean {
    return this.svc.softDelete !== undefined && this.svc.manifest.softDelete(model)
  }

  /** The operations @svc/softdelete and @svc/audit add, when those plugins are loaded. */
  get restore (): SoftDeleteApi['restore'] | undefined {
    return this.svc.softDelete?.restore
  }

  get history (): AuditApi['history'] | undefined {
    return this.svc.audit?.history
  }

  audit (model: ResourceModel): boolean {
    return this.svc.audit !== undefined && this.svc.manifest.audit(model)
  }

  /** The types of a relation target (same version as the schema naming it). */
  of (model: ResourceModel, path = model.path): ModelTypes {
    return this.types.get(`${model.version}/${path}`)!
  }

  all (): ModelTypes[] {
    return [...this.types.values()]
  }
}
