import { createContext } from 'preact'
import { useContext } from 'preact/hooks'
import type { Resource } from './api.js'
import type { Describe, Schema } from './describe.js'
import type { Identity } from './session.js'

export interface ConsoleState {
  describe: Describe
  resources: Map<string, Resource>
  identity: Identity
  signOut: () => void
}

export const ConsoleContext = createContext<ConsoleState | null>(null)

export function useConsole (): ConsoleState {
  const c = useContext(ConsoleContext)
  if (c === null) throw new Error('useConsole outside the signed-in console')
  return c
}

/** The schema and resource client of a route's `:path`, or null for an unknown path. */
export function useSchema (path: string): { schema: Schema; resource: Resource } | null {
  const c = useConsole()
  const schema = c.describe.schemas.find((s) => s.path === path)
  const resource = c.resources.get(path)
  return schema !== undefined && resource !== undefined ? { schema, resource } : null
}
