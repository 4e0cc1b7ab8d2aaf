import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { reconnects } from './connection.ts';
import { Time } from './time.tsx';

const sentenceOf = (err: unknown) => (err instanceof ApiError ? err.message : String(err));

/**
 * Loads on mount, when `deps` change, on `reload`, and again whenever the API comes back after an outage (so no
 * page keeps showing what it read before). `loading` is true while a load is in flight; an error is kept as a
 * sentence beside the last data read, which stays shown.
 */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const back = reconnects.value;
  // only the newest load may set the state: an older answer arriving late is dropped
  const latest = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++latest.current;
    setLoading(true);
    try {
      const value = await fn();
      if (mine !== latest.current) return;
      setData(value);
      setError(undefined);
    } catch (err) {
      if (mine === latest.current) setError(sentenceOf(err));
    } finally {
      if (mine === latest.current) setLoading(false);
    }
  }, [...deps, back]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload };
}

export const ErrorLine = ({ error }: { error?: string }) =>
  error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;

/**
 * What a list shows besides its rows: the API's error, "Loading…" before the first answer, and the empty
 * state once an answer had nothing in it — never an empty table that could mean any of the three.
 */
export function LoadState(props: { load: { data?: unknown; error?: string; loading: boolean }; count?: number; empty: ComponentChildren }) {
  const { data, error, loading } = props.load;
  return (
    <>
      <ErrorLine error={error} />
      {data === undefined && loading ? (
        <p class="muted loading" role="status" aria-live="polite">
          Loading…
        </p>
      ) : null}
      {data !== undefined && props.count === 0 ? <p class="muted empty">{props.empty}</p> : null}
    </>
  );
}

/**
 * Runs one action at a time: while it is in flight `busy` is true (its buttons are disabled, and a second
 * run is ignored, so nothing is submitted twice); then the API's answer shows in the success style, or its
 * error in the error style with the API's message.
 */
export function useAction() {
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const running = useRef(false);
  const run = async (fn: () => Promise<string>) => {
    if (running.current) return;
    running.current = true;
    setBusy(true);
    try {
      setOutcome({ ok: true, text: await fn() });
    } catch (err) {
      setOutcome({ ok: false, text: sentenceOf(err) });
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  const Answer = () =>
    outcome ? (
      outcome.ok ? (
        <p class="answer" role="status">
          {outcome.text}
        </p>
      ) : (
        <p class="error" role="alert">
          {outcome.text}
        </p>
      )
    ) : null;
  return { run, busy, Answer };
}

/** A time with its zone, UTC on hover (time.tsx). */
export const when = (iso: string | null | undefined) => <Time iso={iso} />;
