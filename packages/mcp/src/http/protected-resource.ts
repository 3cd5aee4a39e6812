import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify'
import { documentedResponse } from '@svc/core/kit'

/** RFC 9728's well-known prefix; the MCP authorization spec has clients read it after a 401. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource'

/** The service's public origin: core's `publicBaseUrl` when the host set one, else the request's. */
function origin (app: FastifyInstance, request: FastifyRequest): string {
  return app.svc.config.publicBaseUrl ?? `${request.protocol}://${request.host}`
}

/**
 * OAuth 2.0 Protected Resource Metadata for the MCP endpoint. svc issues its own bearer tokens
 * (`POST /login`), so the authorization server named is the service itself; it is no OAuth
 * server (no authorize or token endpoint), which the `svc_*` members spell out for clients.
 */
export function resourceMetadata (base: string, mcpPath: string): Record<string, unknown> {
  return {
    resource: `${base}${mcpPath}`,
    authorization_servers: [base],
    bearer_methods_supported: ['header'],
    resource_name: 'svc MCP tools',
    svc_login_endpoint: `${base}/login`,
    svc_refresh_endpoint: `${base}/auth/refresh`,
    svc_authentication:
      'Send Authorization: Bearer <accessToken> from POST /login ({ email, password }), or ' +
      'X-Client-Id: <api client id> for read-only tools. svc is not an OAuth authorization server: ' +
      'configure the header in the MCP client instead of an OAuth flow.'
  }
}

/**
 * The discovery documents (at the root and at the path-suffixed form RFC 9728 derives from the
 * resource URL), and `WWW-Authenticate: Bearer resource_metadata="…"` on every 401 of the
 * endpoint, so MCP clients find how to authenticate instead of guessing an OAuth flow.
 */
export function protectedResource (
  app: FastifyInstance,
  mcpPath: string
): { challenge: (request: FastifyRequest) => string } {
  const document = `${PROTECTED_RESOURCE_PATH}${mcpPath}`
  for (const url of [PROTECTED_RESOURCE_PATH, document]) {
    app.get(
      url,
      {
        // Read by @fastify/swagger when the host documents its routes (its keys are not in FastifySchema).
        schema: {
          summary: 'OAuth 2.0 protected-resource metadata of the MCP endpoint (RFC 9728)',
          tags: ['mcp'],
          security: [],
          response: {
            200: {
              type: 'object',
              required: ['resource'],
              additionalProperties: true,
              properties: {
                resource: { type: 'string' },
                bearer_methods_supported: { type: 'array', items: { type: 'string' } }
              }
            }
          }
        } as FastifySchema,
        serializerCompiler: documentedResponse
      },
      async (request, reply) => {
        void reply.header('cache-control', 'public, max-age=300')
        return resourceMetadata(origin(app, request), mcpPath)
      }
    )
  }
  return {
    challenge: (request) => {
      const metadata = `${origin(app, request)}${document}`
      // RFC 6750: a request that sent a token learns it was refused; one without learns nothing more.
      const error = request.headers.authorization !== undefined ? ', error="invalid_token"' : ''
      return `Bearer resource_metadata="${metadata}"${error}`
    }
  }
}
