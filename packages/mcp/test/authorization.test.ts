import t from 'tap'
import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  selectResourceURL,
  type OAuthClientProvider
} from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { buildApp, connect, makeUser } from './helper.js'

// The MCP authorization spec's discovery: a 401 names the RFC 9728 metadata, which names svc's own login.

const RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
}

t.test('a 401 carries WWW-Authenticate: Bearer with resource_metadata the SDK discovers', async (t) => {
  const { url } = await buildApp(t)
  const origin = new URL(url).origin
  const res = await fetch(url, { method: 'POST', headers: RPC, body: JSON.stringify(INIT) })
  t.equal(res.status, 401)
  t.equal(((await res.json()) as { error: { code: string } }).error.code, 'UNAUTHENTICATED', 'the service envelope')
  t.equal(
    res.headers.get('www-authenticate'),
    `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`
  )

  const { resourceMetadataUrl, error } = extractWWWAuthenticateParams(res)
  t.equal(resourceMetadataUrl?.href, `${origin}/.well-known/oauth-protected-resource/mcp`, 'the SDK reads the pointer')
  t.equal(error, undefined, 'no token sent: no error code (RFC 6750)')
  const metadata = await discoverOAuthProtectedResourceMetadata(new URL(url), { resourceMetadataUrl })
  t.match(
    metadata,
    { resource: url, authorization_servers: [origin], bearer_methods_supported: ['header'] },
    'parsed by the SDK schema'
  )
  t.equal((metadata as Record<string, unknown>).svc_login_endpoint, `${origin}/login`, "svc's own login")
  const resource = await selectResourceURL(new URL(url), {} as unknown as OAuthClientProvider, metadata)
  t.equal(resource?.href, url, 'the resource matches the URL the client dialed (the SDK refuses a mismatch)')

  // Without the header's pointer the SDK probes the path-aware document, then the root one.
  t.same(await discoverOAuthProtectedResourceMetadata(new URL(url)), metadata, 'found by RFC 9728 discovery alone')
  const root = await fetch(`${origin}/.well-known/oauth-protected-resource`)
  t.equal(root.status, 200, 'the root document, unauthenticated')
  t.same(await root.json(), metadata)
})

t.test('a refused token gets error="invalid_token"; the SDK client fails fast without credentials', async (t) => {
  const { url } = await buildApp(t)
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...RPC, authorization: 'Bearer not-a-token' },
    body: JSON.stringify(INIT)
  })
  t.equal(res.status, 401)
  t.match(res.headers.get('www-authenticate'), /^Bearer resource_metadata="[^"]+", error="invalid_token"$/)
  const client = new Client({ name: 'anonymous', version: '1.0.0' })
  await t.rejects(
    client.connect(new StreamableHTTPClientTransport(new URL(url))),
    { code: 401, message: /UNAUTHENTICATED/ },
    'no credentials: 401 in the service envelope'
  )
  // With the bearer the same client works, and answers that are not 401 carry no challenge.
  const ok = await connect(t, url, makeUser().headers)
  t.ok((await ok.listTools()).tools.length > 0)
  const fine = await fetch(url, {
    method: 'POST',
    headers: { ...RPC, ...makeUser().headers },
    body: JSON.stringify(INIT)
  })
  t.equal(fine.status, 200)
  t.equal(fine.headers.get('www-authenticate'), null)
})

t.test('publicBaseUrl names the public origin, whatever Host the request had', async (t) => {
  const { url } = await buildApp(t, { core: { publicBaseUrl: 'https://svc.example.com/' } })
  const res = await fetch(url, { method: 'POST', headers: RPC, body: JSON.stringify(INIT) })
  t.equal(
    res.headers.get('www-authenticate'),
    'Bearer resource_metadata="https://svc.example.com/.well-known/oauth-protected-resource/mcp"'
  )
  const doc = await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', url))).json()
  t.match(doc, {
    resource: 'https://svc.example.com/mcp',
    authorization_servers: ['https://svc.example.com'],
    svc_login_endpoint: 'https://svc.example.com/login'
  })
})

t.test('a custom path gets its own document', async (t) => {
  const { url } = await buildApp(t, { mcp: { path: '/tools/mcp' } })
  const res = await fetch(url, { method: 'POST', headers: RPC, body: JSON.stringify(INIT) })
  t.match(res.headers.get('www-authenticate'), /oauth-protected-resource\/tools\/mcp"$/)
  const doc = await discoverOAuthProtectedResourceMetadata(new URL(url))
  t.equal(doc.resource, url)
})
