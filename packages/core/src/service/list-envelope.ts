/** The spec's list envelope from one page of results; every paged surface (records, history) uses it. */
export function listEnvelope<T> (results: T[], totalResults: number, page: number, perPage: number): {
  results: T[], totalResults: number, page: number, perPage: number, totalPages: number, nextPage: number | null, prevPage: number | null
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
