import { signal } from '@preact/signals';
import { sentence } from './messages.ts';
import { answered } from './connection.ts';

/** The bearer token lives in this tab's sessionStorage only: closing the tab signs out. */
const TOKEN_KEY = 'hostmgr.token';
export const token = signal<string | null>(sessionStorage.getItem(TOKEN_KEY));
export function setToken(t: string | null): void {
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  else sessionStorage.removeItem(TOKEN_KEY);
  token.value = t;
}

/** The API's envelope: `message` is a code the console turns into a sentence (messages.ts). */
export interface Envelope<T> {
  status: 'success' | 'error';
  message: string;
  error?: string;
  data: T;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string | undefined,
  ) {
    super(sentence(code, detail));
  }
}

/** One call to this origin's API; answers `data`, or throws an ApiError whose message is a sentence. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await call<T>(method, path, body)).data;
}

export async function call<T>(method: string, path: string, body?: unknown): Promise<Envelope<T> & { httpStatus: number }> {
  const headers: Record<string, string> = {};
  if (token.value) headers.authorization = `Bearer ${token.value}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    answered(false);
    throw new ApiError(0, 'network_error', undefined);
  }
  answered(true);
  let env: Envelope<T>;
  try {
    env = (await res.json()) as Envelope<T>;
  } catch {
    throw new ApiError(res.status, 'bad_answer', `HTTP ${res.status}`);
  }
  if (!res.ok || env.status !== 'success') {
    if (res.status === 401 && token.value) setToken(null);
    throw new ApiError(res.status, env.message ?? 'unknown', env.error);
  }
  return { ...env, httpStatus: res.status };
}

/** Query string of the defined values. */
export const qs = (q: Record<string, string | number | boolean | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
};
