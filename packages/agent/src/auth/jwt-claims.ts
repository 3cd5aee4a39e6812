/** The claims of a JWT the agent holds, read without verifying: the service verifies every use. */
export interface Claims {
  exp: number | null
  roles: string[]
}

export function readClaims (jwt: string): Claims {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown
      roles?: unknown
    }
    return {
      exp: typeof payload.exp === 'number' ? payload.exp * 1000 : null,
      roles: Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : []
    }
  } catch {
    return { exp: null, roles: [] }
  }
}
