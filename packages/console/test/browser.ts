import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { deflateSync, crc32 } from 'node:zlib'
import { chromium, type Browser, type Page, type Request } from 'playwright-core'
import { CHROMIUM } from './helper.js'

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

export async function launch (t: { teardown: (fn: () => unknown) => void }): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
  })
  t.teardown(async () => await browser.close())
  return browser
}

export interface Recorded {
  method: string
  url: URL
  headers: Record<string, string>
}

/** Every request a page makes, script errors and CSP violations: what the console did, to check afterwards. */
export function watch (page: Page): { requests: Recorded[]; problems: string[] } {
  const requests: Recorded[] = []
  const problems: string[] = []
  page.on('request', (req: Request) => {
    requests.push({ method: req.method(), url: new URL(req.url()), headers: req.headers() })
  })
  page.on('pageerror', (err) => {
    problems.push(`pageerror: ${err.message}`)
  })
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 4\d\d/.test(m.text())) problems.push(`console: ${m.text()}`)
  })
  return { requests, problems }
}

export async function signIn (
  page: Page,
  base: string,
  email: string,
  password: string,
  path = '/console/'
): Promise<void> {
  await page.goto(`${base}${path}`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

/** axe-core's WCAG 2.x A/AA rules (and best practices) on the page as it is; the violations, summarized. */
export async function axeViolations (page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol: the page's CSP (script-src 'self') does not apply.
  await page.evaluate(AXE)
  const result = await page.evaluate(
    async () =>
      await (window as any).axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }
      })
  )
  return (result.violations as Array<{ id: string; nodes: Array<{ target: string[] }> }>).map(
    (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`
  )
}

/** A real 4×4 RGB PNG (decodable: the preview must load), built with zlib. */
export function png (): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([len, body, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(4, 0)
  ihdr.writeUInt32BE(4, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  const rows = Buffer.concat(Array.from({ length: 4 }, () => Buffer.from([0, ...Array(4).fill([10, 88, 202]).flat()])))
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0))
  ])
}
