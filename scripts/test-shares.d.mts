export function shareableTestFiles(testDir: string): string[]

export function shareOf<T>(files: readonly T[], index: number, count: number): T[]

export function importShare(shareFileUrl: string, index: number, count: number): Promise<string[]>

export function runShare(
  t: { test: (name: string, fn: (t: { pass: (msg: string) => void }) => Promise<void>) => unknown },
  shareFileUrl: string,
  index: number,
  count: number
): void
