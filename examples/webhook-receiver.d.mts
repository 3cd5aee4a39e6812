import type { Server } from 'node:http'

export function verifySignature(secret: string, rawBody: Buffer | string, header: unknown): boolean
export function createReceiver(opts: {
  secret: string
  onEvent: (event: Record<string, any>, meta: { deliveryId: string; type: string | string[] | undefined }) => void
  seen?: Set<string>
}): Server
