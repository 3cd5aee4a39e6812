import { readPrimaryPid } from '../cluster/pid-file.js'

/**
 * `svc reload`: asks the running cluster primary (SVC_WORKERS above 1, same DATA_DIR) to replace
 * its workers one at a time. Same as `kill -HUP <pid>`; returns the pid it signalled.
 */
export async function reload (env: NodeJS.ProcessEnv): Promise<number> {
  const dataDir = env.DATA_DIR?.trim() || './.data'
  const pid = await readPrimaryPid(dataDir)
  if (pid === null) {
    throw new Error(
      `no running svc primary found (no live pid in ${dataDir}/svc-primary.pid; reload needs SVC_WORKERS above 1)`
    )
  }
  process.kill(pid, 'SIGHUP')
  return pid
}
