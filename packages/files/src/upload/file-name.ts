const MAX_NAME = 255
// C0/C1 controls, DEL, and the bidi overrides that make `exe.png` look like `gnp.exe`.
const UNSAFE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu

/**
 * The client's file name as stored in `originalName`: only its last path segment (no `../`, no
 * directories from Windows clients), no control characters (NUL included), NFC, at most 255
 * characters. It is metadata only: never part of a key or a file-system path.
 */
export function safeFileName (raw: unknown): string {
  const text = typeof raw === 'string' ? raw : ''
  const base = text.split(/[/\\]/).pop() ?? ''
  const clean = base.replace(UNSAFE, '').normalize('NFC').trim()
  const name = clean === '.' || clean === '..' ? '' : [...clean].slice(0, MAX_NAME).join('')
  return name === '' ? 'file' : name
}
