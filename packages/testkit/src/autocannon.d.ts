// autocannon ships no types; only the slice the benchmarks use.
declare module 'autocannon' {
  interface Request {
    path?: string
    method?: string
    body?: string
    headers?: Record<string, string>
  }
  interface Options {
    url: string
    connections?: number
    duration?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: Array<Request & { setupRequest?: (req: Request) => Request }>
  }
  interface Result {
    errors: number
    non2xx: number
    requests: { average: number; total: number }
  }
  function autocannon (opts: Options): Promise<Result>
  export default autocannon
}
