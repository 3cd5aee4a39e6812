import { Type, type Static } from '@sinclair/typebox'

// Deliberately loose: the address is proven by the reset mail, not by a regex.
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^\\s*[^\\s@]+@[^\\s@]+\\s*$' })
// bcrypt only reads the first 72 bytes; the byte length is checked again in the handler.
const NewPassword = Type.String({ minLength: 8, maxLength: 72 })
const Name = Type.String({ minLength: 1, maxLength: 100 })
const OpaqueToken = Type.String({ minLength: 1, maxLength: 512 })

export const RegisterBody = Type.Object({ first_name: Name, last_name: Name, email: Email, password: NewPassword })
export type RegisterBody = Static<typeof RegisterBody>

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 })
})
export type LoginBody = Static<typeof LoginBody>

export const RefreshBody = Type.Object({ refreshToken: OpaqueToken })
export type RefreshBody = Static<typeof RefreshBody>

export const ForgotPasswordBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) })
export type ForgotPasswordBody = Static<typeof ForgotPasswordBody>

export const ResetPasswordBody = Type.Object({ token: OpaqueToken, password: NewPassword })
export type ResetPasswordBody = Static<typeof ResetPasswordBody>

// Answers (documentation: see rest/route-docs.ts).
const Id = Type.String({ description: 'id (24 hex characters)' })
const Stamp = Type.String({ format: 'date-time' })
export const PublicUserSchema = Type.Object({
  _id: Id,
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String(),
  roles: Type.Array(Type.String()),
  createdAt: Stamp,
  updatedAt: Stamp
})
const AccessToken = Type.String({
  description: 'JWT for `Authorization: Bearer …`, signed with JWT_SECRET (a new secret invalidates it)'
})
const RefreshToken = Type.String({ description: 'opaque, single use: POST /auth/refresh' })
export const SessionSchema = Type.Object({
  user: PublicUserSchema,
  accessToken: AccessToken,
  refreshToken: RefreshToken
})
export const TokensSchema = Type.Object({ accessToken: AccessToken, refreshToken: RefreshToken })
export const AcceptedSchema = Type.Object({ accepted: Type.Literal(true) })
