import { randomBytes } from 'node:crypto'
import type { Collection, Db } from 'mongodb'

export const API_CLIENTS_COLLECTION = 'api_clients'

export interface ApiClientDoc {
  /** The value sent as `X-Client-Id`. An identifier for anonymous read-only surfaces, not a secret. */
  _id: string
  role: string
  name?: string
  /** The tenant (`user_id`) the client belongs to: its reads stay inside that tenant's records. */
  ownerId?: string
  createdAt: Date
}

/** `cl_` + 128 random bits: unguessable, so ids cannot be enumerated. */
export function generateClientId (): string {
  return `cl_${randomBytes(16).toString('hex')}`
}

export class ApiClientStore {
  readonly collection: Collection<ApiClientDoc>

  constructor (db: Db) {
    this.collection = db.collection<ApiClientDoc>(API_CLIENTS_COLLECTION)
  }

  async findById (id: string): Promise<ApiClientDoc | null> {
    return await this.collection.findOne({ _id: id })
  }

  async create (input: { role: string; name?: string; ownerId?: string }): Promise<ApiClientDoc> {
    const doc: ApiClientDoc = { _id: generateClientId(), role: input.role, createdAt: new Date() }
    if (input.name !== undefined) doc.name = input.name
    if (input.ownerId !== undefined) doc.ownerId = input.ownerId
    await this.collection.insertOne(doc)
    return doc
  }
}
