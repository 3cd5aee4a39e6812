// The tenant's webhook subscriptions (`@svc/webhooks` routes), through the client's transport.
import { http, type ListPage } from './api.js'

export interface Subscription {
  _id: string
  url: string
  events: string[]
  active: boolean
  failureCount: number
  lastDeliveryAt?: string | null
  createdAt: string
  updatedAt: string
  secret?: string
}

export interface Delivery {
  _id: string
  deliveryId: string
  event: string
  attempt: number
  status: string
  responseCode?: number | null
  durationMs?: number | null
  error?: string | null
  at: string
}

const BASE = '/api/v1/webhooks'
const one = (id: string): string => `${BASE}/${encodeURIComponent(id)}`

export const webhooks = {
  list: async (page = 1) =>
    await http.request<ListPage<Subscription>>({
      method: 'GET',
      path: BASE,
      query: new URLSearchParams({ __page: String(page) })
    }),
  get: async (id: string) => await http.request<Subscription>({ method: 'GET', path: one(id) }),
  create: async (input: { url: string; events: string[] }) =>
    await http.request<Subscription>({ method: 'POST', path: BASE, json: input }),
  update: async (id: string, patch: { active?: boolean; url?: string; events?: string[] }) =>
    await http.request<Subscription>({ method: 'PATCH', path: one(id), json: patch }),
  remove: async (id: string) => await http.request<unknown>({ method: 'DELETE', path: one(id) }),
  test: async (id: string) => await http.request<{ deliveryId: string }>({ method: 'POST', path: `${one(id)}/test` }),
  deliveries: async (id: string, page = 1) =>
    await http.request<ListPage<Delivery>>({
      method: 'GET',
      path: `${one(id)}/deliveries`,
      query: new URLSearchParams({ __page: String(page), __perPage: '20' })
    })
}
