import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'

export interface RegisteredUser {
  user: { _id: string; email: string; roles?: string[]; [k: string]: unknown }
  accessToken: string
  refreshToken: string
  headers: { authorization: string }
  password: string
}

/**
 * Registers a fresh user through `POST /register` (CONTRACT.md body) and returns the tokens
 * plus ready-made headers. E-mails are unique per call so tests never collide.
 */
export async function registerUser (
  app: FastifyInstance,
  overrides: Record<string, unknown> = {}
): Promise<RegisteredUser> {
  const password = typeof overrides.password === 'string' ? overrides.password : 'correct horse battery staple'
  const payload = {
    first_name: 'Test',
    last_name: 'User',
    email: `user-${randomBytes(5).toString('hex')}@example.test`,
    password,
    ...overrides
  }
  const res = await app.inject({ method: 'POST', url: '/register', payload })
  if (res.statusCode !== 201) {
    throw new Error(`registerUser: POST /register answered ${res.statusCode}: ${res.body}`)
  }
  const body = res.json() as Omit<RegisteredUser, 'headers' | 'password'>
  return { ...body, password, headers: { authorization: `Bearer ${body.accessToken}` } }
}
