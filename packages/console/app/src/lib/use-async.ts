import { useCallback, useEffect, useRef, useState } from 'preact/hooks'

export interface AsyncState<T> {
  data: T | undefined
  error: unknown
  loading: boolean
  reload: () => void
}

/** Runs `load` when `deps` change (the previous run's answer is dropped); `reload()` runs it again. */
export function useAsync<T> (load: () => Promise<T>, deps: unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true
  })
  const [tick, setTick] = useState(0)
  const run = useRef(0)
  useEffect(() => {
    const mine = ++run.current
    setState((s) => ({ ...s, loading: true }))
    load().then(
      (data) => {
        if (run.current === mine) setState({ data, error: undefined, loading: false })
      },
      (error: unknown) => {
        if (run.current === mine) setState({ data: undefined, error, loading: false })
      }
    )
  }, [...deps, tick])
  const reload = useCallback(() => {
    setTick((n) => n + 1)
  }, [])
  return { ...state, reload }
}
