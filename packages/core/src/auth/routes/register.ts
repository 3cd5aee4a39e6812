import type { FastifyInstance } from 'fastify'
import { toPublicUser } from '../public-user.js'
import { AUTH_LIMITED } from '../route-config.js'
import { RegisterBody, SessionSchema } from '../schemas.js'
import { DOCUMENTED, documented } from '../../rest/route-docs.js'
import { startSession, type AuthDeps } from '../session.js'
import { assertPasswordBytes, assertValidBody } from '../validation.js'

export function registerRoute (app: FastifyInstance, deps: AuthDeps): void {
  app.post<{ Body: RegisterBody }>(
    '/register',
    {
      schema: documented({
        summary: 'Create an account and a session',
        security: [],
        body: RegisterBody,
        response: { 201: SessionSchema }
      }),
      ...DOCUMENTED,
      attachValidation: true,
      config: AUTH_LIMITED
    },
    async (request, reply) => {
      assertValidBody(request)
      const { email, password } = request.body
      assertPasswordBytes(password)
      // Roles are never taken from the body: every self-registered user starts as ['user'].
      const user = await deps.users.create({
        first_name: request.body.first_name,
        last_name: request.body.last_name,
        email,
        passwordHash: await deps.passwords.hash(password)
      })
      const session = await startSession(deps, user)
      return await reply.code(201).send({ user: toPublicUser(user), ...session })
    }
  )
}
