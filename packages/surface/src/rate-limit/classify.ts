import type { FastifyRequest } from 'fastify'

export type Bucket = 'api' | 'auth'

/** A path as the router sees it: percent-decoded (`/%61pi/v1` is `/api/v1`); undecodable text stays as sent. */
function decodedPath (url: string): string {
  const path = url.split('?', 1)[0]
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/**
 * Which budget a request counts against, from what the router matched: a route's own tag
 * (`config.svcRateLimit`), else the matched route's path template, else (no route: a 404) the
 * decoded path — never the raw URL, which percent-encoding could disguise.
 */
export function classifier (apiPaths: string[]): (request: FastifyRequest) => Bucket | null {
  const isApi = (path: string): boolean =>
    path.startsWith('/api/') || apiPaths.some((p) => path === p || path.startsWith(`${p}/`))
  return (request) => {
    // Preflights are answered by the CORS layer without touching data; browsers cache them.
    if (request.method === 'OPTIONS') return null
    if (request.routeOptions.config?.svcRateLimit === 'auth') return 'auth'
    return isApi(request.routeOptions.url ?? decodedPath(request.url)) ? 'api' : null
  }
}
