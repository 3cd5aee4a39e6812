import { isSvcError } from '@svc/client'
import type { ComponentChildren } from 'preact'

/** What went wrong, in the envelope's words: code, message and the request id to quote. */
export function ErrorNotice ({ error, title }: { error: unknown; title?: string }): preact.JSX.Element | null {
  if (error === undefined || error === null) return null
  const svc = isSvcError(error) ? error : null
  const message = svc?.message ?? (error instanceof Error ? error.message : String(error))
  return (
    <div class='notice error' role='alert'>
      <strong>{title ?? (svc !== null ? errorTitle(svc.code) : 'Something went wrong')}</strong>
      <p>{message}</p>
      {svc?.code === 'INVALID_TRANSITION' && svc.details !== undefined && (
        <p>
          Allowed from <code>{String(svc.details.current)}</code>:{' '}
          {(svc.details.allowed as string[]).length > 0
            ? (svc.details.allowed as string[]).join(', ')
            : 'none (a final state)'}
        </p>
      )}
      {svc !== null && (
        <p class='muted small'>
          {svc.code}
          {svc.requestId !== undefined ? ` · request ${svc.requestId}` : ''}
        </p>
      )}
    </div>
  )
}

function errorTitle (code: string): string {
  switch (code) {
    case 'VALIDATION':
      return 'Please check the highlighted fields'
    case 'INVALID_TRANSITION':
      return 'That move is not allowed'
    case 'FORBIDDEN':
      return 'Not allowed for your role'
    case 'NOT_FOUND':
      return 'Not found'
    case 'CONFLICT':
      return 'Conflict'
    case 'UNAUTHENTICATED':
      return 'Signed out'
    case 'RATE_LIMITED':
      return 'Too many requests: wait a moment'
    case 'NETWORK':
      return 'The service did not answer'
    default:
      return 'The service refused the request'
  }
}

export function Loading ({ label = 'Loading' }: { label?: string }): preact.JSX.Element {
  return (
    <p class='muted' role='status' aria-live='polite'>
      {label}…
    </p>
  )
}

export function Success ({ children }: { children: ComponentChildren }): preact.JSX.Element {
  return (
    <div class='notice ok' role='status'>
      {children}
    </div>
  )
}

/** `details.issues` of a VALIDATION envelope by field path (`lineItems.0.sku`); `details.field` alone otherwise. */
export function issuesOf (error: unknown): Map<string, string> {
  const out = new Map<string, string>()
  if (!isSvcError(error) || (error.code !== 'VALIDATION' && error.code !== 'FORBIDDEN')) return out
  const d = (error.details ?? {}) as { field?: unknown; issues?: Array<{ field?: unknown; message?: unknown }> }
  for (const i of d.issues ?? []) {
    if (typeof i.field === 'string' && typeof i.message === 'string' && !out.has(i.field)) out.set(i.field, i.message)
  }
  if (out.size === 0 && typeof d.field === 'string') out.set(d.field, error.message)
  return out
}
