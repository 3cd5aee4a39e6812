/** @svc/devdb — offline MongoDB-wire development database. Development and tests only. */
export { startDevDb } from './server.js'
export type { DevDb, DevDbOptions } from './server.js'
export { CommandError, Codes } from './errors.js'
