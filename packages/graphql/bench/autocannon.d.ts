// autocannon ships no types; only the slice the benchmark uses.
declare module 'autocannon' {
  interface Options { url: string, method?: string, body?: string, connections?: number, duration?: number, headers?: Record<string, string> }
  interface Result { errors: number, non2xx: number, requests: { average: number, total: number } }
  function autocannon (opts: Options): Promise<Result>
  export default autocannon
}
