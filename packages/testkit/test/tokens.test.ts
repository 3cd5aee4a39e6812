import { test } from 'tap'
import { createHmac } from 'node:crypto'
import { signToken, tokenUser, userClaims } from '../src/index.js'

function parts (token: string): [Record<string, unknown>, Record<string, unknown>, string] {
  const [h, p, s] = token.split('.')
  return [JSON.parse(Buffer.from(h, 'base64url').toString()), JSON.parse(Buffer.from(p, 'base64url').toString()), s]
}

test('signToken makes HS256 tokens verifiable with the secret', async (t) => {
  const token = signToken(userClaims(), 'secret')
  const [head, payload, sig] = parts(token)
  t.equal(head.alg, 'HS256')
  t.equal(payload.user_id, '65f000000000000000000001')
  t.ok((payload.exp as number) > (payload.iat as number))
  const [h, p] = token.split('.')
  t.equal(sig, createHmac('sha256', 'secret').update(`${h}.${p}`).digest('base64url'))
})

test('signToken variants: alg none, expired, other algorithm', async (t) => {
  t.match(signToken(userClaims(), 's', { alg: 'none' }), /\.$/)
  const [, expired] = parts(signToken(userClaims(), 's', { expiresIn: -10 }))
  t.ok((expired.exp as number) < Date.now() / 1000)
  t.equal(parts(signToken(userClaims(), 's', { alg: 'HS512' }))[0].alg, 'HS512')
})

test('tokenUser: a fresh tenant with a bearer of the given secret', async (t) => {
  const a = tokenUser('secret')
  const b = tokenUser('secret', { roles: ['user', 'admin'] })
  t.match(a.userId, /^[0-9a-f]{24}$/)
  t.not(a.userId, b.userId, 'a new tenant each call')
  const [head, payload, sig] = parts(a.headers.authorization.replace(/^Bearer /, ''))
  t.equal(head.alg, 'HS256')
  t.equal(payload.user_id, a.userId)
  t.same(payload.roles, ['user'])
  t.ok(sig.length > 0)
  t.same(parts(b.headers.authorization.slice(7))[1].roles, ['user', 'admin'], 'claims override')
  t.equal(tokenUser('s', { user_id: 'given' }).userId, 'given')
})
