import { createServer } from 'node:net'
import t from 'tap'
import { createModel, type Model, type ChatMessage } from '../src/model/index.js'
import { startScriptedModel, type ScriptedModel } from '../src/testing/index.js'

const tools = [
  {
    name: 'list_contacts',
    description: 'List contacts',
    parameters: { type: 'object', properties: { perPage: { type: 'number' } } }
  }
]

for (const provider of ['openai', 'anthropic'] as const) {
  t.test(provider, async (t) => {
    const server: ScriptedModel = await startScriptedModel(provider)
    t.teardown(server.close)
    const model: Model = createModel({
      provider,
      url: server.url,
      model: 'scripted',
      apiKey: 'k-123',
      retries: 2,
      retryBaseMs: 5,
      timeoutMs: 1500
    })

    t.test('streams text token by token', async (t) => {
      server.push({ text: 'Hello there, friend.' })
      const tokens: string[] = []
      const reply = await model.complete({
        system: 'be brief',
        messages: [{ role: 'user', content: 'hi' }],
        tools,
        onToken: (x) => tokens.push(x)
      })
      t.equal(reply.text, 'Hello there, friend.')
      t.same(reply.toolCalls, [])
      t.ok(tokens.length > 1, 'more than one token event')
      t.equal(tokens.join(''), reply.text)
      const sent = server.requests.at(-1)
      t.equal(sent.stream, true)
      t.equal(sent.model, 'scripted')
      if (provider === 'openai') {
        t.same(sent.messages[0], { role: 'system', content: 'be brief' })
        t.equal(sent.tools[0].function.name, 'list_contacts')
        t.equal(server.headers.at(-1)?.authorization, 'Bearer k-123')
      } else {
        t.equal(sent.system, 'be brief')
        t.equal(sent.tools[0].input_schema.type, 'object')
        t.equal(server.headers.at(-1)?.['x-api-key'], 'k-123')
        t.equal(server.headers.at(-1)?.['anthropic-version'], '2023-06-01')
      }
    })

    t.test('assembles streamed tool calls and sends their results back', async (t) => {
      server.push({
        text: 'Looking.',
        toolCalls: [
          { name: 'list_contacts', args: { perPage: 5 }, id: 'c1' },
          { name: 'list_resources', args: {}, id: 'c2' }
        ]
      })
      const reply = await model.complete({ messages: [{ role: 'user', content: 'who?' }], tools })
      t.same(reply.toolCalls, [
        { id: 'c1', name: 'list_contacts', args: { perPage: 5 } },
        { id: 'c2', name: 'list_resources', args: {} }
      ])
      server.push({ text: 'Two contacts.' })
      const history: ChatMessage[] = [
        { role: 'user', content: 'who?' },
        { role: 'assistant', content: 'Looking.', toolCalls: reply.toolCalls },
        { role: 'tool', toolCallId: 'c1', name: 'list_contacts', content: '{"results":[]}' },
        { role: 'tool', toolCallId: 'c2', name: 'list_resources', content: 'boom', isError: true }
      ]
      const second = await model.complete({ messages: history, tools })
      t.equal(second.text, 'Two contacts.')
      const sent = server.requests.at(-1)
      if (provider === 'openai') {
        t.same(sent.messages[1].tool_calls[0], {
          id: 'c1',
          type: 'function',
          function: { name: 'list_contacts', arguments: '{"perPage":5}' }
        })
        t.same(sent.messages.slice(2), [
          { role: 'tool', tool_call_id: 'c1', content: '{"results":[]}' },
          { role: 'tool', tool_call_id: 'c2', content: 'boom' }
        ])
      } else {
        t.same(sent.messages[1].content[1], {
          type: 'tool_use',
          id: 'c1',
          name: 'list_contacts',
          input: { perPage: 5 }
        })
        t.equal(sent.messages.length, 3, 'both results in one user message')
        t.same(sent.messages[2].content[1], { type: 'tool_result', tool_use_id: 'c2', content: 'boom', is_error: true })
      }
    })

    t.test('retries 429 and 5xx with backoff, then succeeds', async (t) => {
      const before = server.requests.length
      server.push(
        { status: 429, body: 'slow down', headers: { 'retry-after': '0' } },
        { status: 503, body: 'busy' },
        { text: 'finally' }
      )
      const reply = await model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] })
      t.equal(reply.text, 'finally')
      t.equal(server.requests.length - before, 3)
    })

    t.test('gives up after the retries with a clear 503', async (t) => {
      server.push({ status: 500, body: 'a' }, { status: 502, body: 'b' }, { status: 500, body: 'c' })
      const err = await model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] }).catch((e: any) => e)
      t.match(err, {
        code: 'SERVICE_UNAVAILABLE',
        statusCode: 503,
        message: 'model API answered 500',
        internal: `${server.url}/${provider === 'openai' ? 'chat/completions' : 'messages'}: c`
      })
      t.notMatch(err.message, /127\.0\.0\.1/, 'the message a person sees names no internal address (the log gets it)')
    })

    t.test('a rejected key is not retried and names the setting', async (t) => {
      const before = server.requests.length
      server.push({ status: 401, body: 'bad key' })
      await t.rejects(model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] }), {
        code: 'SERVICE_UNAVAILABLE',
        message: /401 \(check AGENT_LLM_API_KEY\)/,
        details: { status: 401 }
      })
      t.equal(server.requests.length - before, 1)
    })

    t.test('a wrong URL names the settings', async (t) => {
      const wrong = createModel({ provider, url: server.url.replace('/v1', '/nope'), model: 'm', retries: 0 })
      await t.rejects(wrong.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] }), {
        message: /404 \(check AGENT_LLM_URL and AGENT_MODEL\)/
      })
    })

    t.test('a model that never answers times out', async (t) => {
      server.push({ stall: 'headers' }, { stall: 'headers' }, { stall: 'headers' })
      await t.rejects(model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] }), {
        code: 'SERVICE_UNAVAILABLE',
        message: /timed out/
      })
    })

    t.test('a stream that stalls mid-way times out without a retry', async (t) => {
      const before = server.requests.length
      server.push({ stall: 'body' })
      await t.rejects(model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] }), {
        code: 'SERVICE_UNAVAILABLE',
        message: /timed out/
      })
      t.equal(server.requests.length - before, 1)
    })

    t.test('a stream cut short is an error, not a truncated answer', async (t) => {
      server.push({ cut: true, text: 'half' })
      await t.rejects(model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] }), {
        message: /ended before the reply finished/
      })
    })

    t.test('an error event inside the stream surfaces', async (t) => {
      server.push({ streamError: 'overloaded' })
      await t.rejects(model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] }), {
        details: { reason: 'MODEL_ERROR' },
        message: /overloaded/
      })
    })

    t.test('malformed JSON in the stream surfaces', async (t) => {
      server.push({ raw: 'data: {not json\n\n' })
      await t.rejects(model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] }), {
        message: /malformed JSON/,
        details: { reason: 'PROTOCOL' }
      })
    })

    t.test('unparseable tool arguments reach the tool, so it can tell the model', async (t) => {
      const raw =
        provider === 'openai'
          ? 'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"list_contacts","arguments":"{oops"}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
          : 'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"x","name":"list_contacts","input":{}}}\n\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"[1,2]"}}\n\ndata: {"type":"message_stop"}\n\n'
      server.push({ raw })
      const reply = await model.complete({ messages: [{ role: 'user', content: 'x' }], tools })
      t.same(reply.toolCalls[0].args, provider === 'openai' ? { __unparsedArguments: '{oops' } : { value: [1, 2] })
    })
  })
}

t.test('an unreachable model is retried then reported', async (t) => {
  // A port that was just free: nothing listens on it.
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as { port: number }
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  const model = createModel({
    provider: 'openai',
    url: `http://127.0.0.1:${port}/v1`,
    model: 'm',
    retries: 1,
    retryBaseMs: 1
  })
  await t.rejects(model.complete({ messages: [{ role: 'user', content: 'x' }], tools: [] }), {
    code: 'SERVICE_UNAVAILABLE',
    message: /unreachable: ECONNREFUSED/,
    details: { reason: 'UNREACHABLE' }
  })
})

t.test('configuration is checked up front', async (t) => {
  t.throws(() => createModel({ provider: 'openai', model: '' }), /AGENT_MODEL/)
  t.throws(() => createModel({ provider: 'cohere' as 'openai', model: 'm' }), /unknown model provider 'cohere'/)
  t.equal(createModel({ provider: 'anthropic', model: 'm' }).provider, 'anthropic')
})
