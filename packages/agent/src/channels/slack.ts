import { createHmac, timingSafeEqual } from 'node:crypto'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { LRUCache } from 'lru-cache'
import { request } from 'undici'
import type { Identities } from '../auth/identity.js'
import { isAgentError, UnlinkedError } from '../errors.js'
import type { ConversationTurns } from '../runtime/conversation-turns.js'
import type { RenderPayload } from '../tools/render.js'

export const SLACK_API_URL = 'https://slack.com/api'
/** Slack's own replay window for signed requests. */
export const MAX_SKEW_SECONDS = 300

export interface SlackOptions {
  /** The app's signing secret: every event's `X-Slack-Signature` is checked against it. */
  signingSecret: string
  /** Bot token (`xoxb-…`) used to post answers. */
  botToken: string
  /** Web API base. Default `https://slack.com/api`. */
  apiUrl?: string
}

interface SlackChannelOptions extends SlackOptions {
  identities: Identities
  /** The agent's public origin, for link URLs. */
  linkBase: () => string
  turns: ConversationTurns
}

/** `v0=<hex HMAC-SHA256 of "v0:<timestamp>:<raw body>">`, compared in constant time. */
export function verifySlackSignature (
  secret: string,
  timestamp: string | undefined,
  rawBody: string,
  signature: string | undefined,
  now = Date.now()
): boolean {
  if (timestamp == null || signature == null || !/^\d+$/.test(timestamp)) return false
  if (Math.abs(now / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS) return false
  const expected = Buffer.from(`v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`)
  const given = Buffer.from(signature)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** Slack shows text, not widgets: tables become a monospace block, charts a caption. */
function renderText (payload: RenderPayload): string {
  if (payload.type === 'chart') return `_(chart: ${String(payload.spec.title ?? 'untitled')})_`
  const lines = [
    payload.columns.join(' | '),
    ...payload.rows.map((r) =>
      r.map((c) => (c == null ? '' : typeof c === 'object' ? JSON.stringify(c) : String(c))).join(' | ')
    )
  ]
  return `\`\`\`\n${lines.join('\n')}\n\`\`\``
}

interface MessageEvent {
  type: string
  user?: string
  text?: string
  channel?: string
  ts?: string
  thread_ts?: string
  bot_id?: string
  subtype?: string
}

/**
 * A chat platform channel: Slack's Events API. The signed payload is the trust boundary (no
 * cookie): the channel user is `<team>:<user>` from a verified event. Events are acknowledged at
 * once (Slack retries after 3 s) and answered through `chat.postMessage`; a link request goes
 * to the user alone (`chat.postEphemeral`).
 */
export async function slackChannel (app: FastifyInstance, opts: SlackChannelOptions): Promise<void> {
  const api = (opts.apiUrl ?? SLACK_API_URL).replace(/\/+$/, '')
  const seen = new LRUCache<string, true>({ max: 10_000, ttl: 3_600_000 })

  const post = async (method: string, body: Record<string, unknown>, log: FastifyBaseLogger): Promise<void> => {
    try {
      const res = await request(`${api}/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${opts.botToken}` },
        body: JSON.stringify(body),
        headersTimeout: 10_000,
        bodyTimeout: 10_000
      })
      const answer = (await res.body.json()) as { ok?: boolean; error?: string }
      if (answer.ok !== true) {
        log.warn({ method, error: answer.error, status: res.statusCode }, 'slack refused the message')
      }
    } catch (err) {
      log.warn({ err, method }, 'slack unreachable')
    }
  }

  const answer = async (team: string, event: MessageEvent, log: FastifyBaseLogger): Promise<void> => {
    const where = { channel: event.channel, thread_ts: event.thread_ts ?? event.ts }
    try {
      const cuid = `${team}:${String(event.user)}`
      // A Slack user's link codes are bounded per Slack user: Slack, not the person, is the address.
      const identity = await opts.identities.forChannelUser('slack', cuid, {
        linkBase: opts.linkBase(),
        issuer: `slack:${cuid}`
      })
      const turn = await opts.turns.prepare(identity, log)
      const renders: string[] = []
      const result = await turn.run(String(event.text ?? ''), (e) => {
        if (e.type === 'render') renders.push(renderText(e.payload))
      })
      await post(
        'chat.postMessage',
        { ...where, text: [result.text, ...renders].filter((x) => x !== '').join('\n\n') },
        log
      )
    } catch (err) {
      if (err instanceof UnlinkedError) {
        await post(
          'chat.postEphemeral',
          {
            channel: event.channel,
            user: event.user,
            text: `To answer with your data, link your account: ${String(err.details?.linkUrl)}`
          },
          log
        )
        return
      }
      if (!isAgentError(err)) log.error({ err }, 'slack turn failed')
      await post(
        'chat.postMessage',
        { ...where, text: `Sorry, I could not answer: ${isAgentError(err) ? err.message : 'internal error'}` },
        log
      )
    }
  }

  // The signature covers the exact bytes: parse JSON here, after verifying.
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: 1_048_576 }, (_req, body, done) => {
    done(null, body)
  })

  app.post('/slack/events', async (req, reply) => {
    const raw = typeof req.body === 'string' ? req.body : ''
    const ts = req.headers['x-slack-request-timestamp']
    const sig = req.headers['x-slack-signature']
    if (
      !verifySlackSignature(opts.signingSecret, Array.isArray(ts) ? ts[0] : ts, raw, Array.isArray(sig) ? sig[0] : sig)
    ) {
      return await reply.code(401).send({ error: { code: 'UNAUTHENTICATED', message: 'bad or stale Slack signature' } })
    }
    let payload: { type?: string; challenge?: string; team_id?: string; event_id?: string; event?: MessageEvent }
    try {
      payload = JSON.parse(raw)
    } catch {
      return await reply.code(400).send({ error: { code: 'VALIDATION', message: 'body is not JSON' } })
    }
    if (payload.type === 'url_verification') return { challenge: payload.challenge }
    const event = payload.event
    const fresh = payload.event_id == null || !seen.has(payload.event_id)
    if (payload.event_id != null) seen.set(payload.event_id, true)
    // Only people's messages: bots (ourselves included) and edits are not questions.
    if (
      payload.type === 'event_callback' &&
      fresh &&
      event != null &&
      (event.type === 'message' || event.type === 'app_mention') &&
      event.bot_id == null &&
      event.subtype == null &&
      typeof event.user === 'string' &&
      typeof event.text === 'string' &&
      event.text.trim() !== ''
    ) {
      void answer(String(payload.team_id ?? ''), event, req.log)
    }
    return await reply.code(200).send({ ok: true })
  })
}
