// autocannon ships no types; only the slice the benchmarks use.
declare module 'autocannon' {
  interface Options {
    url: string
    connections?: number
    duration?: number
    method?: string
    headers?: Record<string, string>
    body?: string
  }
  interface Result {
    errors: number
    non2xx: number
    requests: { average: number; total: number }
  }
  function autocannon (opts: Options): Promise<Result>
  export default autocannon
}
