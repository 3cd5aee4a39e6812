// The benchmarks' SSE reader: a plain node:http request per stream (lighter than fetch at ten
// thousand streams), handing each event's `data` to `onData`. Comments (heartbeats) are read and dropped.
import { request, type ClientRequest } from 'node:http'

export interface OpenStream {
  close: () => void
}

export async function openStream (
  url: string,
  headers: Record<string, string>,
  onData: (data: string) => void
): Promise<OpenStream> {
  return await new Promise((resolve, reject) => {
    let req: ClientRequest | undefined
    req = request(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        reject(new Error(`stream answered ${String(res.statusCode)}`))
        return
      }
      res.setEncoding('utf8')
      let buf = ''
      res.on('data', (chunk: string) => {
        buf += chunk
        let at: number
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, at)
          buf = buf.slice(at + 2)
          for (const line of block.split('\n')) if (line.startsWith('data: ')) onData(line.slice(6))
        }
      })
      res.on('error', () => {})
      resolve({
        close: () => {
          req?.destroy()
          req = undefined
        }
      })
    })
    req.on('error', reject)
    req.end()
  })
}

export function percentile (xs: number[], p: number): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]
}

export async function memoryOf (serverUrl: string): Promise<{ rss: number; heapUsed: number }> {
  return (await (await fetch(`${serverUrl}/bench/memory`)).json()) as { rss: number; heapUsed: number }
}

export const MiB = 1024 * 1024
