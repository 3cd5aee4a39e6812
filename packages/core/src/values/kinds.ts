/**
 * The stored kinds of a field. Lives below the registry (`schema/`) and the service layer
 * (`service/`) because both cast and resolve values by it.
 */
export type FieldKind = 'string' | 'number' | 'boolean' | 'date' | 'mixed' | 'file' | 'object' | 'array'
