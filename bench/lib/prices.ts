import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The price table of docs/scale.md (its rows `| \`key\` | value | … |`), read so the bench and the page agree. */
export const PRICE_KEYS = [
  'lambda_requests_per_million',
  'lambda_gb_second',
  'http_api_per_million',
  'sqs_fifo_per_million',
  'alarm_per_month',
  'logs_per_gb',
  'log_bytes_per_request',
  'rds_storage_gb_month',
] as const;
export type Prices = Record<(typeof PRICE_KEYS)[number], number>;

export function readPrices(file = resolve('docs/scale.md')): Prices {
  const text = readFileSync(file, 'utf8');
  const out: Partial<Prices> = {};
  for (const m of text.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*([0-9.]+)\s*\|/gm)) {
    if ((PRICE_KEYS as readonly string[]).includes(m[1])) out[m[1] as keyof Prices] = Number(m[2]);
  }
  const missing = PRICE_KEYS.filter((k) => out[k] === undefined);
  if (missing.length) throw new Error(`docs/scale.md's price table lacks ${missing.join(', ')}`);
  return out as Prices;
}

export interface PerHostUsage {
  /** control-plane invocations per host per day, each with its mean duration in ms and its function's memory in MB */
  invocations: Array<{ perDay: number; meanMs: number; memoryMb: number }>;
  /** SQS requests per host per day (the long poll) */
  sqsPerDay: number;
  /** the store a host keeps at steady state, GB */
  storeGb: number;
}

/**
 * What one host costs a month (30 days) when `hosts` share the deployment: per-request prices scale with the
 * host's own requests; the one dead-letter alarm of the stage is shared by all hosts.
 */
export function costPerHostMonth(u: PerHostUsage, hosts: number, p: Prices): { total: number; parts: Record<string, number> } {
  const inv = u.invocations.reduce((s, x) => s + x.perDay, 0) * 30;
  // Lambda bills each invocation's duration at its own function's memory (1 GB = 1 024 MB in AWS's GB-s)
  const gbS = u.invocations.reduce((s, x) => s + x.perDay * (x.meanMs / 1000) * (x.memoryMb / 1024), 0) * 30;
  const parts = {
    'HTTP API': (inv / 1e6) * p.http_api_per_million,
    'Lambda requests': (inv / 1e6) * p.lambda_requests_per_million,
    'Lambda GB-s': gbS * p.lambda_gb_second,
    logs: ((inv * p.log_bytes_per_request) / 1e9) * p.logs_per_gb,
    SQS: ((u.sqsPerDay * 30) / 1e6) * p.sqs_fifo_per_million,
    'DLQ alarm (shared)': p.alarm_per_month / hosts,
    store: u.storeGb * p.rds_storage_gb_month,
  };
  return { total: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}
