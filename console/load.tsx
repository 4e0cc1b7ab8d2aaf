import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { Time } from './time.tsx';

/** Loads once (and on `reload`); an error is kept as a sentence. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const reload = useCallback(async () => {
    try {
      setData(await fn());
      setError(undefined);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, reload };
}

export const ErrorLine = ({ error }: { error?: string }) =>
  error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;

/** Runs an action and reports the API's answer (or its error) as a sentence. */
export function useAction() {
  const [answer, setAnswer] = useState<string | undefined>(undefined);
  const run = async (fn: () => Promise<string>) => {
    try {
      setAnswer(await fn());
    } catch (err) {
      setAnswer(err instanceof ApiError ? err.message : String(err));
    }
  };
  const Answer = () =>
    answer ? (
      <p class="answer" role="status">
        {answer}
      </p>
    ) : null;
  return { run, Answer };
}

/** A time with its zone, UTC on hover (time.tsx). */
export const when = (iso: string | null | undefined) => <Time iso={iso} />;
