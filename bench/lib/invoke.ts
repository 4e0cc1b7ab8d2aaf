import { closeSync, openSync, writeSync } from 'node:fs';
import { format } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

export type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Imports a built function bundle in this process. `instance` gives each store its own module instance (and
 * so its own `getDb()` pool, created from DATABASE_URL on the first request): set DATABASE_URL first.
 */
export async function loadHandler(bundle: string, instance: string): Promise<Handler> {
  const mod = (await import(`${pathToFileURL(bundle).href}?bench=${encodeURIComponent(instance)}`)) as { handler: Handler };
  return mod.handler;
}

/**
 * Runs `fn` with the pipeline's per-request log line written to /dev/null rather than the terminal: the line is
 * still built and written synchronously (what Lambda's stdout costs), it just does not flood the bench output.
 */
export async function withQuietLog<T>(fn: () => Promise<T>): Promise<T> {
  const fd = openSync('/dev/null', 'w');
  const original = console.log;
  console.log = (...args: unknown[]) => void writeSync(fd, `${format(...args)}\n`);
  try {
    return await fn();
  } finally {
    console.log = original;
    closeSync(fd);
  }
}

/** The envelope's message of a response, for checking a measured path answers what it should. */
export const messageOf = (res: APIGatewayProxyStructuredResultV2) => {
  try {
    return (JSON.parse(String(res.body)) as { message?: string }).message ?? '';
  } catch {
    return '';
  }
};
