import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { ValidationError } from '@svc/core'
import { ipLiteral, isPublicAddress } from './address-policy.js'

/** `dns.lookup` with `{ all: true }` semantics; tests pass a local resolver. */
export type Lookup = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void
) => void

/** CONTRACT: a refused URL is 400 VALIDATION with one of these `details.reason`s. */
export type RefusalReason = 'PRIVATE_ADDRESS' | 'SCHEME' | 'UNRESOLVABLE'

export class UrlRefusedError extends ValidationError {
  constructor (
    readonly reason: RefusalReason,
    message: string
  ) {
    super(message, { field: 'url', reason })
  }
}

function parseHttpUrl (raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new UrlRefusedError('SCHEME', 'url must be an absolute http(s) URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlRefusedError('SCHEME', `url scheme ${url.protocol} is not allowed (http or https)`)
  }
  return url
}

export interface UrlGuardOptions {
  /** Skip the address check (NODE_ENV=test): receivers on 127.0.0.1. Schemes are still checked. */
  allowPrivate: boolean
  lookup?: Lookup
}

/**
 * The SSRF guard: http(s) only, and every address the host is or resolves to must be public.
 * `check` runs when a subscription is saved; `lookup` is handed to the delivery connection, so
 * the address connected to is the one just checked (no DNS-rebinding window between the two).
 */
export class UrlGuard {
  readonly #allowPrivate: boolean
  readonly #lookup: Lookup

  constructor (opts: UrlGuardOptions) {
    this.#allowPrivate = opts.allowPrivate
    this.#lookup = opts.lookup ?? (dnsLookup as unknown as Lookup)
  }

  /** Refuses (UrlRefusedError) or answers the addresses the URL's host stands for. */
  async check (raw: string): Promise<LookupAddress[]> {
    return await this.resolve(parseHttpUrl(raw).hostname)
  }

  /**
   * The delivery-time check without DNS: the scheme, and an IP literal host (a socket to a
   * literal never calls `connectLookup`). A DNS name is checked by `connectLookup` as it connects.
   */
  precheck (raw: string): void {
    const { hostname } = parseHttpUrl(raw)
    const literal = ipLiteral(hostname)
    if (literal !== null && !this.#allowPrivate && !isPublicAddress(literal)) {
      throw new UrlRefusedError('PRIVATE_ADDRESS', `url host ${hostname} is a non-public address`)
    }
  }

  /** Addresses of a host (an IP literal stands for itself), each one checked. */
  async resolve (hostname: string): Promise<LookupAddress[]> {
    const literal = ipLiteral(hostname)
    const addresses =
      literal !== null
        ? [{ address: literal, family: literal.includes(':') ? 6 : 4 }]
        : await this.#resolveName(hostname)
    if (!this.#allowPrivate) {
      const bad = addresses.some((a) => !isPublicAddress(a.address))
      // Never the address itself: a refusal must not tell a caller what an internal name resolves to.
      if (bad) {
        throw new UrlRefusedError('PRIVATE_ADDRESS', `url host ${hostname} is or resolves to a non-public address`)
      }
    }
    return addresses
  }

  async #resolveName (hostname: string): Promise<LookupAddress[]> {
    const addresses = await new Promise<LookupAddress[]>((resolve) => {
      this.#lookup(hostname, { all: true }, (err, list) => {
        resolve(err != null || !Array.isArray(list) ? [] : list)
      })
    })
    if (addresses.length === 0) throw new UrlRefusedError('UNRESOLVABLE', `url host ${hostname} does not resolve`)
    return addresses
  }

  /**
   * A `net.connect` lookup for the delivery agent: resolves, checks every address, and connects
   * only to those (undici passes it through `connect.lookup`).
   */
  readonly connectLookup = (hostname: string, options: { all?: boolean }, callback: (...args: any[]) => void): void => {
    this.resolve(hostname).then(
      (list) => {
        if (options.all === true) callback(null, list)
        else callback(null, list[0].address, list[0].family)
      },
      (err: unknown) => {
        callback(err)
      }
    )
  }
}
