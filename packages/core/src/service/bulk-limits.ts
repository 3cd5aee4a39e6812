/** Most records one bulk write (create, update or delete) may touch; more is refused, never half done. */
export const MAX_BULK_RECORDS = 1000
