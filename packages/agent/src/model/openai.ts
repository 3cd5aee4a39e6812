import { ModelUnavailableError } from '../errors.js'
import { eventJson, parseArgs, postEventStream } from './http.js'
import type { ChatMessage, HttpModelOptions, Model, ModelReply, ModelRequest, ToolCall } from './types.js'

export const OPENAI_DEFAULT_URL = 'https://api.openai.com/v1'

function toWire (system: string | undefined, messages: ChatMessage[]): unknown[] {
  const out: unknown[] = system != null && system !== '' ? [{ role: 'system', content: system }] : []
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.content })
    else if (m.role === 'tool') out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content })
    else {
      const calls = m.toolCalls ?? []
      out.push({
        role: 'assistant',
        content: m.content === '' && calls.length > 0 ? null : m.content,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.name, arguments: JSON.stringify(c.args) }
              }))
            }
          : {})
      })
    }
  }
  return out
}

interface PartialCall {
  id: string
  name: string
  args: string
}

/**
 * Any OpenAI-compatible Chat Completions server (OpenAI, Ollama, vLLM, llama.cpp server):
 * `stream: true` with function tools; tool-call fragments are assembled by their `index`.
 */
export function openaiModel (opts: HttpModelOptions): Model {
  const url = `${opts.url.replace(/\/+$/, '')}/chat/completions`
  return {
    provider: 'openai',
    async complete (req: ModelRequest): Promise<ModelReply> {
      const body: Record<string, unknown> = {
        model: opts.model,
        stream: true,
        messages: toWire(req.system, req.messages)
      }
      if (req.tools.length > 0) {
        body.tools = req.tools.map((t) => ({
          type: 'function',
          function: { name: t.name, description: t.description ?? '', parameters: t.parameters }
        }))
      }
      const events = postEventStream({
        url,
        headers: opts.apiKey != null && opts.apiKey !== '' ? { authorization: `Bearer ${opts.apiKey}` } : {},
        body,
        timeoutMs: opts.timeoutMs ?? 60_000,
        retries: opts.retries ?? 2,
        retryBaseMs: opts.retryBaseMs ?? 500,
        signal: req.signal
      })
      let text = ''
      const calls = new Map<number, PartialCall>()
      let finished = false
      for await (const event of events) {
        if (event.data === '[DONE]') {
          finished = true
          break
        }
        const chunk = eventJson(event, 'openai')
        if (chunk.error != null) {
          throw new ModelUnavailableError(
            `model API error: ${String(chunk.error.message ?? JSON.stringify(chunk.error))}`,
            { reason: 'MODEL_ERROR' }
          )
        }
        const choice = chunk.choices?.[0]
        if (choice == null) continue
        const delta = choice.delta ?? {}
        if (typeof delta.content === 'string' && delta.content !== '') {
          text += delta.content
          req.onToken?.(delta.content)
        }
        for (const part of delta.tool_calls ?? []) {
          const index = typeof part.index === 'number' ? part.index : calls.size
          const call = calls.get(index) ?? { id: '', name: '', args: '' }
          if (typeof part.id === 'string') call.id = part.id
          if (typeof part.function?.name === 'string') call.name += part.function.name
          if (typeof part.function?.arguments === 'string') call.args += part.function.arguments
          calls.set(index, call)
        }
        if (choice.finish_reason != null) finished = true
      }
      if (!finished) {
        throw new ModelUnavailableError('model stream ended before the reply finished', { reason: 'STREAM' })
      }
      const toolCalls: ToolCall[] = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, c]) => ({ id: c.id !== '' ? c.id : `call_${index}`, name: c.name, args: parseArgs(c.args) }))
      return { text, toolCalls }
    }
  }
}
