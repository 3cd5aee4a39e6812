import { connect } from 'node:net'

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

/** True when a Redis answers PING at `url` within half a second (tests needing it skip loudly otherwise). */
export async function redisAnswers (url: string = TEST_REDIS_URL): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return await new Promise((resolve) => {
    const socket = connect(Number(port === '' ? 6379 : port), hostname, () => socket.write('PING\r\n'))
    socket.setTimeout(500, () => {
      socket.destroy()
      resolve(false)
    })
    socket.on('data', (d) => {
      socket.end()
      resolve(d.toString().startsWith('+PONG'))
    })
    socket.on('error', () => resolve(false))
  })
}
