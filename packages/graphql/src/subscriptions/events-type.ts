import { GraphQLFloat, GraphQLID, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql'
import type { ModelTypes } from '../schema/catalog.js'
import { recordType } from '../schema/records.js'
import { DateTimeScalar, JsonScalar } from '../schema/scalars.js'
import { typeName } from '../schema/names.js'

/**
 * `<Path>Event`: one record event as the feed delivers it. Its `record` is `<Path>EventRecord`,
 * the record type without relation fields: an event is handed to every subscriber from memory,
 * and a relation would cost a query per subscriber per event.
 */
export function eventType (t: ModelTypes, softDelete: boolean): GraphQLObjectType {
  const name = typeName(t.model)
  const record = recordType(t.model, { softDelete, relations: () => ({}), name: `${name}EventRecord` })
  return new GraphQLObjectType({
    name: `${name}Event`,
    description: `A ${t.model.path} record event (\`type\` 'reset' when the lastEventId was past retention: re-read, then follow)`,
    fields: {
      cursor: {
        type: new GraphQLNonNull(GraphQLString),
        description: 'resume after this event: pass it as lastEventId'
      },
      id: { type: GraphQLID, description: 'the event id (the webhook body id of the same event)' },
      type: {
        type: new GraphQLNonNull(GraphQLString),
        description: '<path>.created|updated|deleted|transitioned, or reset'
      },
      version: { type: GraphQLString },
      userId: { type: GraphQLString, description: 'the tenant the event belongs to' },
      recordId: { type: GraphQLID },
      record: { type: record, description: 'the record as the subscriber may read it (a delete: the tombstone)' },
      filter: { type: JsonScalar, description: 'bulk writes: the filter (fields the subscriber may read)' },
      numAffected: { type: GraphQLFloat, description: 'bulk writes: records changed' },
      at: { type: DateTimeScalar }
    }
  })
}
