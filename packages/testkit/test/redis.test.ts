import { createServer } from 'node:net'
import t from 'tap'
import { redisAnswers } from '../src/index.js'

t.test('redisAnswers: PONG, silence, refusal', async (t) => {
  const pong = createServer((s) => s.on('data', () => s.end('+PONG\r\n')))
  const silent = createServer(() => {})
  await Promise.all(
    [pong, silent].map(async (s) => await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve)))
  )
  t.teardown(() => {
    pong.close()
    silent.close()
  })
  const url = (s: typeof pong): string => `redis://127.0.0.1:${(s.address() as { port: number }).port}`
  t.equal(await redisAnswers(url(pong)), true)
  t.equal(await redisAnswers(url(silent)), false, 'no answer within half a second')
  t.equal(await redisAnswers('redis://127.0.0.1:1'), false, 'connection refused')
})
