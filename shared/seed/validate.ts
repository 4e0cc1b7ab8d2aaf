import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { NODE_ID_PATTERN, seedSchema, type Seed } from './schema.ts';

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
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
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
      if (e.params.pattern === NODE_ID_PATTERN) {
        const where = e.propertyName === undefined ? seedPath(e.instancePath) : `${seedPath(e.instancePath)}["${e.propertyName}"]`;
        return `${where}: must be a node id, the host's UUID in lowercase as sysctl -n kern.hostuuid prints it (e.g. 7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01); the agent registers with that id`;
      }
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
  // a bad key's own error (its pattern) says what is wrong; propertyNames' summary line adds nothing
  if (!compiled(doc)) throw new SeedError(source, [...new Set((compiled.errors ?? []).filter((e) => e.keyword !== 'propertyNames').map(describe))]);
  return doc as Seed;
}
