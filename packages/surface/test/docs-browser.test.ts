import { existsSync } from 'node:fs'
import t from 'tap'
import { chromium } from 'playwright-core'
import { buildApp, testDb } from './helper.js'

// Debian's chromium (apt-get install chromium); playwright-core never downloads a browser.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]
const present = existsSync(CHROMIUM)
if (!present) {
  console.error(
    `\n!!! SKIPPED: no Chromium at ${CHROMIUM}: the /api-docs browser test did not run (apt-get install chromium) !!!\n`
  )
}

t.test(
  '/api-docs renders the operations in headless Chromium, offline, without CSP violations',
  { skip: present ? false : `no Chromium at ${CHROMIUM}` },
  async (t) => {
    const app = await buildApp(t, await testDb(t), { rateLimit: false, docs: { title: 'svc API', version: 'v1' } })
    const url = await app.listen({ host: '127.0.0.1', port: 0 })
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS })
    t.teardown(async () => await browser.close())
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const problems: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text())
    })
    page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`))
    page.on('request', (r) => {
      if (!r.url().startsWith(url) && !r.url().startsWith('data:')) problems.push(`left the host: ${r.url()}`)
    })
    await page.goto(`${url}/api-docs/`)
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 })
    const paths = await page.locator('.opblock-summary-path').allTextContents()
    t.ok(
      paths.some((p) => p.replace(/\u200b/g, '').includes('/api/v1/notes/{id}')),
      'GET /api/v1/notes/{id} is listed'
    )
    t.ok(
      paths.some((p) => p.includes('/login')),
      '/login is listed'
    )
    t.ok(paths.length >= 10, `${paths.length} operations shown`)
    t.match(await page.locator('.info .title').textContent(), /svc API/)
    t.same(problems, [], 'no console errors, failed or outside requests')
    const shot = await page.screenshot({
      fullPage: false,
      ...(process.env.SVC_DOCS_SCREENSHOT !== undefined ? { path: process.env.SVC_DOCS_SCREENSHOT } : {})
    })
    t.ok(shot.length > 10_000, 'a screenshot of the rendered page')

    // A phone (390 px, with mobile viewport rules): laid out at the device width, nothing wider.
    const phone = await browser.newPage({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 3
    })
    await phone.goto(`${url}/api-docs/`)
    await phone.waitForSelector('.opblock-summary-path', { timeout: 30_000 })
    const layout = await phone.evaluate(() => ({
      inner: window.innerWidth,
      scroll: document.documentElement.scrollWidth
    }))
    t.equal(layout.inner, 390, 'the layout viewport is the device width (not 980 px)')
    t.ok(layout.scroll <= 390, `no horizontal scrolling (${layout.scroll} px of content)`)
    const box = await phone.locator('.opblock-summary-path').first().boundingBox()
    t.ok(box !== null && box.x + box.width <= 390, 'an operation path fits on the screen')
  }
)
