import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { seedSchema, type Seed } from './schema.ts';

/** A seed that cannot be loaded; `problems` are `path: problem` lines such as `backupEvents[3].status: must be one of …`. */
export class SeedError extends Error {
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`seed ${source} is invalid:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'SeedError';
  }
}

let compiled: ValidateFunction | undefined;

/** `/backupEvents/3/status` → `backupEvents[3].status`. */
export function seedPath(pointer: string, extra?: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out ? `${out}.${p}` : p), '') || '(top level)';
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return `${seedPath(e.instancePath, String(e.params.missingProperty))}: is required`;
    case 'additionalProperties':
      return `${seedPath(e.instancePath, String(e.params.additionalProperty))}: is not an accepted field`;
    case 'enum':
      return `${seedPath(e.instancePath)}: must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'pattern':
      return /At\/pattern$/.test(e.schemaPath) // the timestamps: createdAt, lastSeenAt …
        ? `${seedPath(e.instancePath)}: must be an ISO 8601 date-time, "now" or a relative time such as -2h`
        : `${seedPath(e.instancePath)}: ${e.message}`;
    default:
      return `${seedPath(e.instancePath)}: ${e.message}`;
  }
}

/** Checks a parsed seed against the schema (defaults applied in place); throws SeedError listing every problem. */
export function validateSeed(doc: unknown, source: string): Seed {
  compiled ??= new Ajv({ allErrors: true, useDefaults: true, strict: false }).compile(seedSchema);
  if (!compiled(doc)) throw new SeedError(source, [...new Set((compiled.errors ?? []).map(describe))]);
  return doc as Seed;
}
