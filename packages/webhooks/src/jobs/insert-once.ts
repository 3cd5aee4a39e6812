import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb'

/**
 * Inserts documents with deterministic ids; ones already present (a replay) are skipped, any
 * other error is thrown. Answers the documents this call inserted.
 */
export async function insertIgnoringDuplicates<T extends Document> (col: Collection<T>, docs: T[]): Promise<T[]> {
  if (docs.length === 0) return []
  try {
    await col.insertMany(docs as Array<OptionalUnlessRequiredId<T>>, { ordered: false })
    return docs
  } catch (err) {
    const e = err as {
      code?: number
      writeErrors?: Array<{ code?: number; index: number }> | { code?: number; index: number }
    }
    const writeErrors = Array.isArray(e.writeErrors)
      ? e.writeErrors
      : e.writeErrors !== undefined
        ? [e.writeErrors]
        : []
    if (writeErrors.length === 0 || !writeErrors.every((w) => w.code === 11000)) throw err
    const skipped = new Set(writeErrors.map((w) => w.index))
    return docs.filter((_, i) => !skipped.has(i))
  }
}
