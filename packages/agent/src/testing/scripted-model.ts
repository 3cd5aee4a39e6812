import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One scripted answer: a streamed reply, an HTTP error, a stall, or a broken stream. */
export type Step =
  | { text?: string; toolCalls?: Array<{ name: string; args: unknown; id?: string }> }
  | { status: number; body?: string; headers?: Record<string, string> }
  | { stall: 'headers' | 'body' }
  | { cut: true; text: string }
  | { streamError: string }
  | { raw: string }

export interface ScriptedModel {
  url: string
  /** Request bodies received, in order. */
  requests: any[]
  headers: IncomingMessage['headers'][]
  push: (...steps: Step[]) => void
  /** Drops the steps not yet used. */
  clear: () => void
  close: () => Promise<void>
}

/** Splits text into small fragments, as a real model streams it. */
function fragments (text: string): string[] {
  return text.match(/.{1,4}/gs) ?? []
}

function sse (res: ServerResponse, data: unknown, event?: string): void {
  res.write(
    `${event != null ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`
  )
}

function openaiReply (
  res: ServerResponse,
  step: { text?: string; toolCalls?: Array<{ name: string; args: unknown; id?: string }> }
): void {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'scripted' }
  sse(res, { ...base, choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] })
  for (const f of fragments(step.text ?? '')) {
    sse(res, { ...base, choices: [{ index: 0, delta: { content: f }, finish_reason: null }] })
  }
  ;(step.toolCalls ?? []).forEach((call, index) => {
    const args = JSON.stringify(call.args)
    sse(res, {
      ...base,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index, id: call.id ?? `call_${index}`, type: 'function', function: { name: call.name, arguments: '' } }
            ]
          },
          finish_reason: null
        }
      ]
    })
    for (const f of fragments(args)) {
      sse(res, {
        ...base,
        choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: f } }] }, finish_reason: null }]
      })
    }
  })
  sse(res, {
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: (step.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop' }]
  })
  sse(res, '[DONE]')
}

function anthropicReply (
  res: ServerResponse,
  step: { text?: string; toolCalls?: Array<{ name: string; args: unknown; id?: string }> }
): void {
  sse(
    res,
    {
      type: 'message_start',
      message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'scripted' }
    },
    'message_start'
  )
  sse(res, { type: 'ping' }, 'ping')
  let index = 0
  if (step.text != null && step.text !== '') {
    sse(res, { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start')
    for (const f of fragments(step.text)) {
      sse(res, { type: 'content_block_delta', index, delta: { type: 'text_delta', text: f } }, 'content_block_delta')
    }
    sse(res, { type: 'content_block_stop', index }, 'content_block_stop')
    index++
  }
  for (const call of step.toolCalls ?? []) {
    sse(
      res,
      {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: call.id ?? `toolu_${index}`, name: call.name, input: {} }
      },
      'content_block_start'
    )
    for (const f of fragments(JSON.stringify(call.args))) {
      sse(
        res,
        { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: f } },
        'content_block_delta'
      )
    }
    sse(res, { type: 'content_block_stop', index }, 'content_block_stop')
    index++
  }
  sse(
    res,
    { type: 'message_delta', delta: { stop_reason: (step.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn' } },
    'message_delta'
  )
  sse(res, { type: 'message_stop' }, 'message_stop')
}

/**
 * A local model server speaking the real wire protocol (OpenAI Chat Completions or Anthropic
 * Messages, streamed as SSE), answering each request with the next scripted step. With the
 * script empty it answers a plain "ok".
 */
export async function startScriptedModel (protocol: 'openai' | 'anthropic'): Promise<ScriptedModel> {
  const steps: Step[] = []
  const requests: any[] = []
  const headers: IncomingMessage['headers'][] = []
  const open = new Set<ServerResponse>()
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c: Buffer) => {
      raw += c.toString()
    })
    req.on('end', () => {
      const expected = protocol === 'openai' ? '/v1/chat/completions' : '/v1/messages'
      if (req.url !== expected) {
        res.writeHead(404).end('no such route')
        return
      }
      requests.push(JSON.parse(raw))
      headers.push(req.headers)
      const step = steps.shift() ?? { text: 'ok' }
      if ('status' in step) {
        res.writeHead(step.status, step.headers ?? {}).end(step.body ?? '')
        return
      }
      if ('stall' in step) {
        open.add(res)
        res.on('close', () => open.delete(res))
        if (step.stall === 'body') {
          res.writeHead(200, { 'content-type': 'text/event-stream' })
          res.flushHeaders()
        }
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      if ('raw' in step) {
        res.end(step.raw)
        return
      }
      if ('streamError' in step) {
        if (protocol === 'openai') sse(res, { error: { message: step.streamError } })
        else sse(res, { type: 'error', error: { type: 'overloaded_error', message: step.streamError } }, 'error')
        res.end()
        return
      }
      if ('cut' in step) {
        if (protocol === 'openai') {
          sse(res, { choices: [{ index: 0, delta: { content: step.text }, finish_reason: null }] })
        } else {
          sse(
            res,
            { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
            'content_block_start'
          )
        }
        res.end()
        return
      }
      if (protocol === 'openai') openaiReply(res, step)
      else anthropicReply(res, step)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    headers,
    push: (...s) => {
      steps.push(...s)
    },
    clear: () => {
      steps.length = 0
    },
    close: async () => {
      for (const res of open) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}
