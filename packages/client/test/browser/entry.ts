// The page's script: runs the scenario and leaves its log (or the failure) on `window`.
import { scenario } from './scenario.js'

const w = window as unknown as {
  svcResult?: unknown
  svcError?: string
  svcExpired: (userId: string) => Promise<string>
  svcEmail: string
}
scenario(location.origin, w.svcEmail, w.svcExpired).then(
  (log) => {
    w.svcResult = log
  },
  (err: unknown) => {
    w.svcError = err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err)
  }
)
