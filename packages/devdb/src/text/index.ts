/**
 * Text search for devdb, imported by the engine (index-build.ts, select.ts).
 * Behaviour follows MongoDB 7.0 text indexes (version 3); see the README's "Text search".
 */
export { normalizeTextIndex, textIndexListing } from './index-spec.js'
export { parseTextQuery } from './query-parser.js'
export { textScore, validateTextDocument } from './scorer.js'
export type { ParsedTextQuery, TextIndexSpec } from './types.js'
