import { ModelUnavailableError } from '../errors.js'
import { eventJson, parseArgs, postEventStream } from './http.js'
import type { ChatMessage, HttpModelOptions, Model, ModelReply, ModelRequest } from './types.js'

export const ANTHROPIC_DEFAULT_URL = 'https://api.anthropic.com/v1'
const API_VERSION = '2023-06-01'

type Block = Record<string, unknown>

/** Tool results travel as `tool_result` blocks of a user message; consecutive ones share it. */
function toWire (messages: ChatMessage[]): Array<{ role: string; content: string | Block[] }> {
  const out: Array<{ role: string; content: string | Block[] }> = []
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content })
    else if (m.role === 'assistant') {
      const blocks: Block[] = m.content !== '' ? [{ type: 'text', text: m.content }] : []
      for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.args })
      out.push({ role: 'assistant', content: blocks })
    } else {
      const block: Block = { type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }
      if (m.isError === true) block.is_error = true
      const last = out[out.length - 1]
      if (last?.role === 'user' && Array.isArray(last.content) && last.content.every((b) => b.type === 'tool_result')) {
        last.content.push(block)
      } else out.push({ role: 'user', content: [block] })
    }
  }
  return out
}

interface OpenBlock {
  type: string
  id?: string
  name?: string
  json: string
}

/** The Anthropic Messages API, streamed: text deltas and `tool_use` blocks with partial JSON input. */
export function anthropicModel (opts: HttpModelOptions): Model {
  const url = `${opts.url.replace(/\/+$/, '')}/messages`
  return {
    provider: 'anthropic',
    async complete (req: ModelRequest): Promise<ModelReply> {
      const body: Record<string, unknown> = {
        model: opts.model,
        max_tokens: opts.maxTokens ?? 4096,
        stream: true,
        messages: toWire(req.messages)
      }
      if (req.system != null && req.system !== '') body.system = req.system
      if (req.tools.length > 0) {
        body.tools = req.tools.map((t) => ({
          name: t.name,
          description: t.description ?? '',
          input_schema: t.parameters
        }))
      }
      const events = postEventStream({
        url,
        headers: {
          'anthropic-version': API_VERSION,
          ...(opts.apiKey != null && opts.apiKey !== '' ? { 'x-api-key': opts.apiKey } : {})
        },
        body,
        timeoutMs: opts.timeoutMs ?? 60_000,
        retries: opts.retries ?? 2,
        retryBaseMs: opts.retryBaseMs ?? 500,
        signal: req.signal
      })
      let text = ''
      const blocks = new Map<number, OpenBlock>()
      const order: number[] = []
      let finished = false
      for await (const event of events) {
        const data = eventJson(event, 'anthropic')
        switch (data.type) {
          case 'content_block_start': {
            const cb = data.content_block ?? {}
            blocks.set(data.index, { type: cb.type, id: cb.id, name: cb.name, json: '' })
            order.push(data.index)
            break
          }
          case 'content_block_delta': {
            const delta = data.delta ?? {}
            if (delta.type === 'text_delta' && typeof delta.text === 'string') {
              text += delta.text
              req.onToken?.(delta.text)
            } else if (delta.type === 'input_json_delta') {
              const block = blocks.get(data.index)
              if (block != null) block.json += String(delta.partial_json ?? '')
            }
            break
          }
          case 'message_stop':
            finished = true
            break
          case 'error':
            throw new ModelUnavailableError(
              `model API error: ${String(data.error?.message ?? JSON.stringify(data.error))}`,
              { reason: 'MODEL_ERROR' }
            )
        }
        if (finished) break
      }
      if (!finished) {
        throw new ModelUnavailableError('model stream ended before the reply finished', { reason: 'STREAM' })
      }
      const toolCalls = order
        .map((i) => blocks.get(i) as OpenBlock)
        .filter((b) => b.type === 'tool_use')
        .map((b, i) => ({ id: b.id ?? `toolu_${i}`, name: b.name ?? '', args: parseArgs(b.json) }))
      return { text, toolCalls }
    }
  }
}
