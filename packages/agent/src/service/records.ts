import { request } from 'undici'
import type { HeaderSource } from '../tools/mcp-tools.js'

const TIMEOUT_MS = 10_000

export type Row = Record<string, unknown> & { _id?: string }

/** The service refused a records call; `missing` when it serves no such schema (404 on the collection). */
export class RecordsError extends Error {
  constructor (
    readonly path: string,
    readonly status: number,
    readonly envelope: { code: string; message: string }
  ) {
    super(`${path}: the service answered ${status} ${envelope.code}`)
  }

  get missing (): boolean {
    return this.status === 404 && /^route /.test(this.envelope.message)
  }
}

/**
 * The agent's own records (conversations, the learning layer) through the service's REST API,
 * always with the turn's identity: the service's tenancy and field ACL apply to every call.
 */
export class ServiceRecords {
  readonly #base: string

  constructor (svcUrl: string) {
    this.#base = `${svcUrl.replace(/\/+$/, '')}/api/v1`
  }

  async #call (
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    url: string,
    headers: HeaderSource,
    body?: unknown
  ): Promise<any> {
    const res = await request(url, {
      method,
      headers: { ...(await headers()), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS
    })
    const text = await res.body.text()
    let json: any = null
    try {
      json = JSON.parse(text)
    } catch {}
    if (res.statusCode >= 300) {
      const error = json?.error
      throw new RecordsError(path, res.statusCode, {
        code: typeof error?.code === 'string' ? error.code : 'INTERNAL',
        message: typeof error?.message === 'string' ? error.message : text.slice(0, 200)
      })
    }
    return json
  }

  async list (path: string, query: Record<string, string>, headers: HeaderSource): Promise<Row[]> {
    const body = await this.#call(
      'GET',
      path,
      `${this.#base}/${path}?${new URLSearchParams(query).toString()}`,
      headers
    )
    return Array.isArray(body?.results) ? body.results : []
  }

  async create (path: string, record: Record<string, unknown>, headers: HeaderSource): Promise<Row> {
    return await this.#call('POST', path, `${this.#base}/${path}`, headers, record)
  }

  async update (path: string, id: string, patch: Record<string, unknown>, headers: HeaderSource): Promise<Row> {
    return await this.#call('PUT', path, `${this.#base}/${path}/${encodeURIComponent(id)}`, headers, patch)
  }
}
