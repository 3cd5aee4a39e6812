import type { Test } from 'tap'

async function call (
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string
): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: res.status, json: await res.json() }
}

/**
 * The README snippet's promise, over real HTTP: the app's own route still answers, svc adds
 * registration and a tenant-scoped /api/v1/todos from schema/versions/v1/todos.ts.
 */
export async function exerciseSnippetApp (t: Test, base: string): Promise<void> {
  const own = await call(base, 'GET', '/')
  t.equal(own.status, 200, "GET / (the app's own route)")
  t.match(own.json, { hello: 'your existing routes keep working' }, 'GET / body')

  const anonymous = await call(base, 'GET', '/api/v1/todos')
  t.equal(anonymous.status, 401, 'GET /api/v1/todos without a token')
  t.match(anonymous.json, { error: { code: 'UNAUTHENTICATED' } }, 'the error envelope')

  const email = `ada-${Date.now()}@example.com`
  const registered = await call(base, 'POST', '/register', {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email,
    password: 'analytical-engine'
  })
  t.equal(registered.status, 201, 'POST /register')
  const token = registered.json.accessToken as string

  const created = await call(base, 'POST', '/api/v1/todos', { title: 'ship it' }, token)
  t.equal(created.status, 201, 'POST /api/v1/todos')
  t.match(
    created.json,
    { title: 'ship it', done: false, userId: registered.json.user._id },
    'the created todo, stamped with its owner'
  )

  const listed = await call(base, 'GET', '/api/v1/todos', undefined, token)
  t.equal(listed.status, 200, 'GET /api/v1/todos')
  t.match(listed.json, { totalResults: 1, results: [{ _id: created.json._id, title: 'ship it' }] }, 'the list holds it')
}

/** The first address Fastify's logger reports (`Server listening at http://…`). */
export const LISTENING = /Server listening at (http:\/\/[^"\s]+)/
