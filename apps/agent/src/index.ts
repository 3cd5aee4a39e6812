export { buildAgentApp, REDACT_PATHS } from './build-app.js'
export { loadConfig } from './config.js'
export type { AgentConfig, ConfigResult } from './config.js'
export { main } from './main.js'
