import { anthropicModel, ANTHROPIC_DEFAULT_URL } from './anthropic.js'
import { openaiModel, OPENAI_DEFAULT_URL } from './openai.js'
import type { HttpModelOptions, Model } from './types.js'

export type Provider = 'openai' | 'anthropic'

export interface ModelConfig extends Omit<HttpModelOptions, 'url'> {
  provider: Provider
  /** Defaults to the provider's public API. */
  url?: string
}

/** The model named by the configuration; an unknown provider or a missing model name is refused up front. */
export function createModel (config: ModelConfig): Model {
  if (config.model == null || config.model === '') throw new Error('@svc/agent: a model name is required (AGENT_MODEL)')
  if (config.provider === 'openai') return openaiModel({ ...config, url: config.url ?? OPENAI_DEFAULT_URL })
  if (config.provider === 'anthropic') return anthropicModel({ ...config, url: config.url ?? ANTHROPIC_DEFAULT_URL })
  throw new Error(
    `@svc/agent: unknown model provider '${String(config.provider)}' (AGENT_LLM_PROVIDER: openai or anthropic)`
  )
}

export { openaiModel, anthropicModel, OPENAI_DEFAULT_URL, ANTHROPIC_DEFAULT_URL }
export type * from './types.js'
