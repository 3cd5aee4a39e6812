import closeWithGrace from 'close-with-grace'
import { buildAgentApp } from './build-app.js'
import { loadConfig } from './config.js'

/** `npx -y pnpm@10 agent`: validates the environment, listens, closes gracefully on signals. */
export async function main (env: Record<string, string | undefined> = process.env): Promise<void> {
  const { config, problems, warnings } = loadConfig(env)
  if (config == null) {
    for (const p of problems) process.stderr.write(`svc-agent: ${p}\n`)
    process.exitCode = 1
    return
  }
  let app
  try {
    app = await buildAgentApp(config)
  } catch (err) {
    // A store locked by another process, an unreadable store file: one clear line, exit 1.
    process.stderr.write(`svc-agent: ${(err as Error).message}\n`)
    process.exitCode = 1
    return
  }
  for (const w of warnings) app.log.warn(w)
  closeWithGrace({ delay: 10_000 }, async ({ err }) => {
    if (err != null) app.log.error({ err }, 'closing after an error')
    await app.close()
  })
  await app.listen({ port: config.port, host: config.host })
}
