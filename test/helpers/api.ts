import type { Kysely } from 'kysely';
import { createDb } from '#store/db';
import { createToken } from '#shared/auth/tokens';
import type { Role } from '#shared/auth/roles';
import type { Database } from '#store/tables';
import { responseChecker } from './response-schemas.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: { status: string; message: string; error: string; data: T };
  text: string;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** sent as is, e.g. malformed JSON */
  rawBody?: string;
  headers?: Record<string, string>;
}

export const apiUrl = () => process.env.HM_TEST_API!;
export const adminToken = () => process.env.HM_TEST_ADMIN_TOKEN!;

/**
 * One HTTP request through serverless-offline. `token: null` sends no Authorization header. Throws when the
 * answer does not match its route's declared response schema.
 */
export async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? adminToken() : opts.token;
  if (token !== null) headers.authorization ??= `Bearer ${token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${apiUrl()}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  // every answer must match the schema its route declares (test/helpers/response-schemas.ts)
  responseChecker().check(method, `/api${path}`, res.status, parsed);
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** Asserts the response is exactly the spec's envelope. */
export function expectEnvelope(res: ApiResponse, status: number, message?: string) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  expect(Object.keys(res.body ?? {}).sort()).toEqual(['data', 'error', 'message', 'status']);
  expect(typeof res.body.message).toBe('string');
  expect(typeof res.body.error).toBe('string');
  if (status < 400) {
    expect(res.body.status).toBe('success');
    expect(res.body.error).toBe('');
  } else {
    expect(res.body.status).toBe('error');
    expect(res.body.error.length).toBeGreaterThan(0);
  }
  if (message) expect(res.body.message).toBe(message);
}

let db: Kysely<Database> | undefined;
/** Direct store access for arranging and asserting state. */
export function testDb(): Kysely<Database> {
  db ??= createDb(process.env.HM_TEST_DATABASE_URL!, 2);
  return db;
}
afterAll(async () => {
  await db?.destroy();
  db = undefined;
});

const tokens = new Map<string, string>();
/** A live token of the given role (cached per test file). */
export async function tokenFor(role: Role, nodeId: string | null = null): Promise<string> {
  const key = `${role}:${nodeId ?? ''}`;
  if (!tokens.has(key)) tokens.set(key, (await createToken(testDb(), { name: `test ${key}`, role, nodeId })).token);
  return tokens.get(key)!;
}

export const uid = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
