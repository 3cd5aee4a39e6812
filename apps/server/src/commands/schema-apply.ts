import { formatApply, progressSink } from './apply-progress.js'
import { processIo, withSchemaApp, type CommandIo } from './schema-app.js'
import { PLAN_BLOCKED } from './schema-plan.js'

export interface SchemaApplyOptions {
  dryRun?: boolean
  batchSize?: number
  rate?: number
  tenant?: string
  samples?: number
  json?: boolean
}

/**
 * `svc schema apply`: runs the pending migrations of `SCHEMA_DIR/migrations` (see core's
 * `applyMigrations`). Progress: a bar on a terminal, JSON lines otherwise (and with `--json`),
 * then the result. A dry run whose migrations leave records not fitting answers PLAN_BLOCKED.
 */
export async function schemaApply (
  opts: SchemaApplyOptions,
  env: NodeJS.ProcessEnv = process.env,
  io: CommandIo = processIo()
): Promise<number> {
  const json = opts.json === true || !io.tty
  const sink = progressSink(io, json)
  let result
  try {
    result = await withSchemaApp(
      env,
      async (app) =>
        await app.svc.evolution.apply({
          dryRun: opts.dryRun === true,
          ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
          ...(opts.rate !== undefined ? { rate: opts.rate } : {}),
          ...(opts.tenant !== undefined ? { tenant: opts.tenant } : {}),
          ...(opts.samples !== undefined ? { samples: opts.samples } : {}),
          onProgress: (p) => {
            sink.update(p)
          },
          onWait: (w) => {
            sink.waiting(w)
          }
        })
    )
  } finally {
    sink.stop()
  }
  io.stdout.write(json ? `${JSON.stringify({ type: 'result', ...result })}\n` : formatApply(result))
  return result.invalid.length > 0 ? PLAN_BLOCKED : 0
}
