import type { ListPage } from '../lib/api.js'

interface Props { page: ListPage<unknown>, onPage: (n: number) => void, label: string }

/** Previous/next with the position; page numbers from the list envelope. */
export function Pager ({ page, onPage, label }: Props): preact.JSX.Element {
  const total = page.totalPages ?? null
  return (
    <nav class='pager' aria-label={label}>
      <button type='button' disabled={page.prevPage === null} onClick={() => { if (page.prevPage !== null) onPage(page.prevPage) }}>‹ Previous</button>
      <span aria-live='polite'>
        Page {page.page}{total !== null ? ` of ${Math.max(total, 1)}` : ''}
        {page.totalResults !== null ? ` · ${page.totalResults} record${page.totalResults === 1 ? '' : 's'}` : ''}
      </span>
      <button type='button' disabled={page.nextPage === null} onClick={() => { if (page.nextPage !== null) onPage(page.nextPage) }}>Next ›</button>
    </nav>
  )
}
