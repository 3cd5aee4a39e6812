import type { ListPage } from '../lib/api.js'

interface Props {
  page: ListPage<unknown>
  onPage: (n: number) => void
  /** Lists that answer `nextCursor`: "Next" continues with it (a keyset walk, steady while records are added). */
  onCursor?: (cursor: string) => void
  label: string
}

/** Previous/next with the position: forward by `nextCursor` where the list has one, else by page number. */
export function Pager ({ page, onPage, onCursor, label }: Props): preact.JSX.Element {
  const total = page.totalPages ?? null
  const cursor = onCursor !== undefined && typeof page.nextCursor === 'string' ? page.nextCursor : null
  const next = (): void => {
    if (cursor !== null) onCursor!(cursor)
    else if (page.nextPage !== null) onPage(page.nextPage)
  }
  return (
    <nav class='pager' aria-label={label}>
      <button
        type='button'
        disabled={page.prevPage === null}
        onClick={() => {
          if (page.prevPage !== null) onPage(page.prevPage)
        }}
      >
        ‹ Previous
      </button>
      <span aria-live='polite'>
        Page {page.page}
        {total !== null ? ` of ${Math.max(total, 1)}` : ''}
        {page.totalResults !== null ? ` · ${page.totalResults} record${page.totalResults === 1 ? '' : 's'}` : ''}
      </span>
      <button type='button' disabled={cursor === null && page.nextPage === null} onClick={next}>
        Next ›
      </button>
    </nav>
  )
}
