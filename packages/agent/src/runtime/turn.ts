import type { ChatMessage, Model } from '../model/types.js'
import type { AgentEvent, HistoryMessage, TurnResult } from './events.js'
import type { TurnToolbox } from './toolbox.js'

export const DEFAULT_SYSTEM_PROMPT = [
  "You are the assistant of a data service. Answer questions about the user's records using the tools;",
  'never invent records or numbers. Show lists of records with render_table and trends or comparisons',
  'with render_chart (a Vega-Lite spec with inline data.values), then answer briefly in text.'
].join(' ')

/** Previous messages the model sees each turn; older ones stay stored but unsent. */
export const CONTEXT_MESSAGES = 20

export interface TurnInput {
  model: Model
  toolbox: TurnToolbox
  message: string
  history: HistoryMessage[]
  maxToolRounds: number
  systemPrompt?: string
  emit: (event: AgentEvent) => void
  signal?: AbortSignal
}

/**
 * One chat turn: the model streams, the tools it asks for run (their results bounded, their
 * errors handed back to it), and so on until it answers without tools or the round cap is hit.
 */
export async function runTurn (input: TurnInput): Promise<TurnResult> {
  const { model, toolbox, emit } = input
  const tools = await toolbox.specs()
  const messages: ChatMessage[] = [...input.history.slice(-CONTEXT_MESSAGES), { role: 'user', content: input.message }]
  const texts: string[] = []
  const result: TurnResult = { text: '', history: [], toolCalls: [], renders: [] }
  for (let round = 0; ; round++) {
    let first = true
    const reply = await model.complete({
      system: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      messages,
      tools,
      signal: input.signal,
      onToken: (text) => {
        // Text of a later round starts a new paragraph, as in the final text.
        if (first && texts.length > 0) emit({ type: 'token', text: '\n\n' })
        first = false
        emit({ type: 'token', text })
      }
    })
    if (reply.text !== '') texts.push(reply.text)
    if (reply.toolCalls.length === 0) break
    if (round >= input.maxToolRounds) {
      result.roundsCapped = true
      if (texts.length === 0) {
        texts.push(`I stopped after ${input.maxToolRounds} rounds of tool calls without a final answer.`)
      }
      break
    }
    messages.push({ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls })
    for (const call of reply.toolCalls) {
      emit({ type: 'tool_call', name: call.name, args: call.args })
      const run = await toolbox.run(call.name, call.args, tools)
      emit({ type: 'tool_result', name: call.name, result: run.result, ...(run.isError ? { isError: true } : {}) })
      if (run.render != null) {
        result.renders.push(run.render)
        emit({ type: 'render', payload: run.render })
      }
      result.toolCalls.push({ name: call.name, args: call.args, result: run.result })
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        name: call.name,
        content: run.text,
        ...(run.isError ? { isError: true } : {})
      })
    }
  }
  result.text = texts.join('\n\n')
  result.history = [
    ...input.history,
    { role: 'user', content: input.message },
    { role: 'assistant', content: result.text }
  ]
  return result
}
