import { test } from 'tap'
import { createHmac } from 'node:crypto'
import { signToken, userClaims } from '../src/index.js'

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
