#!/usr/bin/env node
// The compiled agent (`pnpm build` first): what the container image runs. Workspace packages
// resolve to their `dist/` through their `exports` (no `@svc/source` condition, no tsx).
const { main } = await import('../dist/main.js')
await main()
