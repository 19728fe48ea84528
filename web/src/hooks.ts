import { useCallback, useEffect, useRef, useState } from 'react';
import { get } from './api';

export interface Resource<T> {
  data: T | null;
  error: Error | null;
  loading: boolean;
  reload: () => void;
}

/**
 * GETs `path` (null: nothing yet) and keeps the answer. `pollMs(data)` returns the delay before the next
 * refresh, or null to stop: a run page polls while the run is in flight and stops once it is final.
 * A refresh keeps showing the previous data, so the page does not flicker.
 */
export function useResource<T>(path: string | null, pollMs?: (data: T) => number | null): Resource<T> {
  const [state, setState] = useState<{ data: T | null; error: Error | null; loading: boolean; path: string | null }>({ data: null, error: null, loading: path !== null, path });
  const [tick, setTick] = useState(0);
  const pollRef = useRef(pollMs);
  pollRef.current = pollMs;

  useEffect(() => {
    if (path === null) return;
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async () => {
      try {
        const data = await get<T>(path);
        if (!alive) return;
        setState({ data, error: null, loading: false, path });
        const next = pollRef.current?.(data);
        if (next != null) timer = setTimeout(load, next);
      } catch (error) {
        if (alive) setState((s) => ({ data: s.path === path ? s.data : null, error: error as Error, loading: false, path }));
      }
    };
    setState((s) => ({ ...s, loading: true, error: null, data: s.path === path ? s.data : null, path }));
    void load();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [path, tick]);

  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.path === path ? state.data : null, error: state.error, loading: state.loading, reload };
}

/** Runs an action (a POST, PUT, …), tracking whether it is busy and its error, for buttons and forms. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn(...args);
    } catch (e) {
      setError(e as Error);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, [fn]);
  return { run, busy, error, setError };
}

export function useTitle(title: string) {
  useEffect(() => {
    document.title = `${title} · Rehearsal`;
  }, [title]);
}
