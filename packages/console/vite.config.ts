// Builds the console (app/) into dist/app: hashed assets, the chart libraries in their own chunk
// (loaded only when a chart is drawn), and a brotli and a gzip copy of each text asset, which
// @fastify/static serves to browsers that accept them.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { defineConfig, type Plugin } from 'vite'

const OUT = join(import.meta.dirname, 'dist', 'app')

function precompress (): Plugin {
  return {
    name: 'svc-console-precompress',
    apply: 'build',
    closeBundle () {
      const dir = join(OUT, 'assets')
      for (const name of readdirSync(dir)) {
        if (!/\.(js|css|svg)$/.test(name)) continue
        const file = join(dir, name)
        if (statSync(file).size < 1024) continue
        const body = readFileSync(file)
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(body, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length }
          })
        )
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }))
      }
    }
  }
}

export default defineConfig({
  root: join(import.meta.dirname, 'app'),
  // Relative URLs: the plugin adds `<base href="<prefix>/">`, so one build serves any prefix.
  base: './',
  resolve: { conditions: ['@svc/source'] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: OUT,
    emptyOutDir: true,
    target: 'es2022',
    // The page names only hashed files; Vega's chunk is large and loaded on demand.
    chunkSizeWarningLimit: 2000,
    modulePreload: { polyfill: false }
  },
  plugins: [precompress()]
})
