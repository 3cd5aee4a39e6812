/** The spec's list envelope from one page of results; every paged surface (records, history) uses it. */
export function listEnvelope<T> (
  results: T[],
  totalResults: number,
  page: number,
  perPage: number
): {
    results: T[]
    totalResults: number
    page: number
    perPage: number
    totalPages: number
    nextPage: number | null
    prevPage: number | null
  } {
  const totalPages = Math.ceil(totalResults / perPage)
  return {
    results,
    totalResults,
    page,
    perPage,
    totalPages,
    nextPage: page < totalPages ? page + 1 : null,
    prevPage: page > 1 ? Math.min(page - 1, Math.max(totalPages, 1)) : null
  }
}

/**
 * The records list envelope: the spec's keys plus `nextCursor` (CONTRACT "Lists: cursors and
 * counts"). Without a count (`totalResults` null) the next page follows from `more`, whether a
 * record beyond this page exists.
 */
export function recordsEnvelope<T> (
  results: T[],
  totalResults: number | null,
  page: number,
  perPage: number,
  more: boolean,
  nextCursor: string | null
): {
    results: T[]
    totalResults: number | null
    page: number
    perPage: number
    totalPages: number | null
    nextPage: number | null
    prevPage: number | null
    nextCursor: string | null
  } {
  if (totalResults !== null) return { ...listEnvelope(results, totalResults, page, perPage), nextCursor }
  return {
    results,
    totalResults: null,
    page,
    perPage,
    totalPages: null,
    nextPage: more ? page + 1 : null,
    prevPage: page > 1 ? page - 1 : null,
    nextCursor
  }
}
