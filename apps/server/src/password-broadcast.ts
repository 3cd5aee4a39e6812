import type { FastifyInstance } from 'fastify'
import type { PasswordChangeBroadcast } from '@svc/core'

const CHANNEL = 'svc:password-changed'
type Redis = NonNullable<FastifyInstance['svcSurface']['redis']>

/**
 * With REDIS_URL: completed password resets reach every replica on every host over Redis pub/sub,
 * so none keeps accepting a token issued before the reset for its cache's 10 s. A message lost
 * while Redis is down leaves that bound (RESET_STALENESS in core's cache), nothing worse.
 */
export function redisPasswordBroadcast (app: FastifyInstance, redis: Redis): PasswordChangeBroadcast {
  // A subscribed connection takes no other command: its own, closed with the app. Subscribing on
  // each `ready` also covers a Redis that is down at start-up or restarts.
  const sub = redis.duplicate()
  const log = app.log.child({ name: 'password-broadcast' })
  sub.on('ready', () => {
    sub.subscribe(CHANNEL).catch((err: unknown) => {
      log.warn({ err }, 'subscribe failed')
    })
  })
  sub.on('error', () => {})
  app.addHook('onClose', async () => {
    sub.disconnect()
  })
  return {
    publish: async (userId) => {
      await redis.publish(CHANNEL, userId)
    },
    subscribe: (onChange) => {
      sub.on('message', (channel: string, userId: string) => {
        if (channel === CHANNEL) onChange(userId)
      })
    }
  }
}
