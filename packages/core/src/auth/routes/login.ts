import type { FastifyInstance } from 'fastify'
import { UnauthenticatedError } from '../../errors.js'
import { toPublicUser } from '../public-user.js'
import { AUTH_LIMITED } from '../route-config.js'
import { LoginBody, SessionSchema } from '../schemas.js'
import { DOCUMENTED, documented } from '../../rest/route-docs.js'
import { startSession, type AuthDeps } from '../session.js'
import { assertValidBody } from '../validation.js'

export function loginRoute (app: FastifyInstance, deps: AuthDeps): void {
  app.post<{ Body: LoginBody }>(
    '/login',
    {
      schema: documented({
        summary: 'Log in: a session (access and refresh token)',
        security: [],
        body: LoginBody,
        response: { 200: SessionSchema }
      }),
      ...DOCUMENTED,
      attachValidation: true,
      config: AUTH_LIMITED
    },
    async (request) => {
      assertValidBody(request)
      const { email, password } = request.body
      const user = await deps.users.findByEmail(email)
      // Always one bcrypt comparison (a dummy hash when the user is unknown): same answer, same time.
      const ok = await deps.passwords.verify(password, user?.passwordHash ?? null)
      if (user == null || !ok) throw new UnauthenticatedError('invalid e-mail or password')
      return { user: toPublicUser(user), ...(await startSession(deps, user)) }
    }
  )
}
