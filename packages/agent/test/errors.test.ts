import t from 'tap'
import { ErrorCodes, isErrorCode } from '@svc/core'
import { normalizeError } from '@svc/core/kit'
import {
  AgentErrorCodes,
  errorEnvelope,
  ForbiddenError,
  ModelUnavailableError,
  NotFoundError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthenticatedError,
  UnlinkedError,
  UnsupportedMediaTypeError,
  ValidationError
} from '../src/errors.js'

// The agent runs apart from the service and keeps @svc/core (mongodb, bcrypt, the JWT stack) out
// of its install, so it has its own errors module; these tests keep it the service's vocabulary.

t.test("every agent code is a code of core's table, with the same status", async (t) => {
  for (const [code, status] of Object.entries(AgentErrorCodes)) {
    t.ok(isErrorCode(code), `${code} is one of core's codes`)
    if (isErrorCode(code)) t.equal(status, ErrorCodes[code], `${code}: the status core gives it`)
  }
})

t.test('each agent error renders the envelope core renders for the same error', async (t) => {
  const classes = {
    ValidationError,
    UnauthenticatedError,
    UnlinkedError,
    ForbiddenError,
    NotFoundError,
    UnsupportedMediaTypeError,
    RateLimitedError,
    ModelUnavailableError,
    ServiceUnavailableError
  }
  const seen = new Set<string>()
  for (const [name, Class] of Object.entries(classes)) {
    for (const err of [new Class(), new Class('with details', { reason: 'UNREACHABLE', retryAfterSeconds: 3 })]) {
      const agent = errorEnvelope(err)
      const core = normalizeError(err)
      if (agent.status < 500) {
        t.same({ status: agent.status, body: agent.body }, { status: core.statusCode, body: core.body }, name)
      } else {
        // Core's 5xx envelope carries no details; the agent's 503s add `details.reason` (README "Errors").
        const { details, ...error } = agent.body.error
        t.same({ status: agent.status, error }, { status: core.statusCode, error: core.body.error }, name)
        t.same(details, err.details, `${name}: its details`)
      }
      seen.add(err.code)
    }
  }
  const raised = Object.keys(AgentErrorCodes).filter((c) => c !== 'INTERNAL') // INTERNAL: anything unexpected, below
  t.same([...seen].sort(), raised.sort(), 'every code the agent raises was compared')
})

t.test('an unexpected error is INTERNAL 500 on both sides', async (t) => {
  const agent = errorEnvelope(new Error('a driver detail'))
  const core = normalizeError(new Error('a driver detail'))
  t.same([agent.status, agent.body.error.code], [core.statusCode, core.body.error.code])
  t.notMatch(agent.body.error.message, /driver detail/, 'its message stays in the log')
})
