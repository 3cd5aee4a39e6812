#!/usr/bin/env node
// The compiled CLI (`pnpm build` first): what the container image runs. Workspace packages
// resolve to their `dist/` through their `exports` (no `@svc/source` condition here).
const { main } = await import('../dist/cli.js')
await main(process.argv)
