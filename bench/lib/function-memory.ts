import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { load } from 'js-yaml';

/**
 * Each function's Lambda memory in MB as deployed: its own `memorySize` in the generated functions section
 * (from `memoryMb` in its schema), else the provider's in serverless.yml. Keyed by module
 * (`functions/agent/telemetry`), as the bench's invocation counts are.
 */
export function functionMemoryMb(root = process.cwd()): (module: string) => number {
  const provider = /^provider:\n(?:(?: {2}.*)?\n)*? {2}memorySize: (\d+)$/m.exec(readFileSync(resolve(root, 'serverless.yml'), 'utf8'));
  if (!provider) throw new Error('serverless.yml names no provider memorySize');
  const fallback = Number(provider[1]);
  const file = resolve(root, '.generated/functions.yml');
  const fns = existsSync(file) ? ((load(readFileSync(file, 'utf8')) ?? {}) as Record<string, { handler: string; memorySize?: number }>) : {};
  const own = new Map(Object.values(fns).map((f) => [f.handler.replace(/^dist\//, '').replace(/\.handler$/, ''), f.memorySize]));
  return (module) => own.get(module) ?? fallback;
}
