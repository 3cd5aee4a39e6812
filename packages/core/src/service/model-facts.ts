import type { StateMachineDefinition } from '../schema/define.js'
import type { FieldModel, ResourceModel } from '../schema/model.js'

/**
 * What the read path asks of a schema for every record it presents, worked out once per model
 * (models do not change after loading) instead of once per record.
 */
export interface ModelFacts {
  /** Fields with a `computed` function, in declaration order. */
  computed: FieldModel[]
  /** Whether any field has a read ACL (else nothing is ever hidden). */
  readAcl: boolean
  /** `[field, machine]` of every state machine. */
  machines: Array<[string, StateMachineDefinition]>
}

const known = new WeakMap<ResourceModel, ModelFacts>()

export function modelFacts (model: ResourceModel): ModelFacts {
  let facts = known.get(model)
  if (facts === undefined) {
    facts = {
      computed: model.fields.filter((f) => f.computed !== undefined),
      readAcl: model.fields.some((f) => f.acl?.read !== undefined),
      machines: Object.entries(model.stateMachines)
    }
    known.set(model, facts)
  }
  return facts
}
