import type { FastifyInstance } from 'fastify'
import { UnauthenticatedError } from '../../errors.js'
import { RefreshBody, TokensSchema } from '../schemas.js'
import { DOCUMENTED, documented } from '../../rest/route-docs.js'
import { accessTokenFor, type AuthDeps } from '../session.js'
import { assertValidBody } from '../validation.js'

export function refreshRoute (app: FastifyInstance, deps: AuthDeps): void {
  app.post<{ Body: RefreshBody }>(
    '/auth/refresh',
    {
      schema: documented({
        summary: 'Trade a refresh token for new tokens',
        security: [],
        body: RefreshBody,
        response: { 200: TokensSchema }
      }),
      ...DOCUMENTED,
      attachValidation: true
    },
    async (request) => {
      // Taken before any await: tells a concurrent duplicate from a later reuse.
      const startedAt = new Date()
      assertValidBody(request)
      const result = await deps.refreshTokens.rotate(request.body.refreshToken, startedAt)
      if (!result.ok) {
        if (result.reason === 'reused') {
          request.log.warn({ reason: result.reason }, 'refresh token reuse: family revoked')
        }
        throw new UnauthenticatedError('invalid refresh token')
      }
      // Roles come from the user record, so `svc users set-roles` takes effect at the next refresh.
      const user = await deps.users.findById(result.userId)
      if (user == null) {
        await deps.refreshTokens.revokeFamily(result.familyId)
        throw new UnauthenticatedError('invalid refresh token')
      }
      return { accessToken: accessTokenFor(deps, user), refreshToken: result.refreshToken }
    }
  )
}
