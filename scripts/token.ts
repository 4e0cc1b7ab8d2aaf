/**
 * npm run token -- create|list|revoke|generate: API tokens. Secrets are printed once, at creation; the
 * store keeps only their SHA-256 hashes.
 */
import { parseArgs } from 'node:util';
import { createToken, generateToken, revokeToken, TokenRevokedError } from '#shared/auth/tokens';
import { isRole, ROLES } from '#shared/auth/roles';
import { openCliStore, runCli, STORE_HELP, UsageError } from './cli/store.ts';
import { tokenFormatProblem } from './cli/token-format.ts';

const HELP = `npm run token — create, list and revoke API tokens

Usage:
  npm run token -- create --role <role> --name <name> [--expires <when>] [--node <node-id>] [--secret <token>]
  npm run token -- list [--json]
  npm run token -- revoke <id|name>
  npm run token -- generate

create   prints the new token's secret once (it cannot be shown again)
           --role     ${ROLES.join(' | ')} (viewer: GETs; operator: + guest, storage, network,
                      notification, backup and note changes; admin: everything; agent: /api/agent/* only)
           --name     who or what uses it (1–100 characters)
           --expires  a duration from now (90m, 12h, 30d, 8w) or an ISO date/time (2026-01-31, 2026-01-31T12:00Z);
                      default: never
           --node     required for --role agent: the node id (host UUID) the agent speaks for
           --secret   install this secret (e.g. from generate) instead of a random one; a secret that
                      was revoked is refused (revocation is final)
list     every token: id, name, role, node, created, expires, last used (to the minute), state (active,
         expired, revoked); never secrets
revoke   revokes the active tokens with that id or name; requests with them then get 401
generate prints a fresh well-formed secret (hm_ + 43 base64url characters) and stores nothing; e.g. for
         HM_ADMIN_TOKEN=… npm start, or create --secret

${STORE_HELP}

Examples:
  npm run token -- create --role operator --name alice --expires 30d
  npm run token -- create --role agent --name fbsd-01 --node 7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01
  DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5433/postgres npm run token -- list`;

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d` / `12h` / `90m` / `8w` from now, or an ISO date or date-time; must lie in the future. */
export function parseExpiry(value: string, now = new Date()): Date {
  const rel = /^(\d{1,6})([mhdw])$/.exec(value);
  const at = rel
    ? new Date(now.getTime() + Number(rel[1]) * UNIT_MS[rel[2]])
    : /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)
      ? new Date(value)
      : null;
  if (!at || Number.isNaN(at.getTime()))
    throw new UsageError(`--expires "${value}": expected a duration such as 30d, 12h, 90m, 8w or an ISO date such as 2026-01-31`);
  if (at <= now) throw new UsageError(`--expires "${value}" lies in the past`);
  return at;
}

async function create(opts: { role?: string; name?: string; expires?: string; node?: string; secret?: string }) {
  if (!opts.role || !isRole(opts.role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}${opts.role ? ` (got "${opts.role}")` : ''}`);
  const name = opts.name?.trim();
  if (!name || name.length > 100) throw new UsageError('--name is required (1–100 characters)');
  if (opts.role === 'agent' && !opts.node) throw new UsageError('--node <node-id> is required for an agent token');
  if (opts.role !== 'agent' && opts.node) throw new UsageError('--node applies to agent tokens only');
  const expiresAt = opts.expires ? parseExpiry(opts.expires) : null;
  const problem = opts.secret === undefined ? null : tokenFormatProblem('--secret', opts.secret);
  if (problem) throw new UsageError(problem);
  const store = await openCliStore();
  try {
    const { id, token } = await createToken(store.db, { name, role: opts.role, expiresAt, nodeId: opts.node ?? null, secret: opts.secret }).catch((err) => {
      throw err instanceof TokenRevokedError ? new Error(`--secret: ${err.message}`) : err;
    });
    console.log(
      `created token ${id} "${name}" (${opts.role}${opts.node ? ` for node ${opts.node}` : ''}, ${expiresAt ? `expires ${expiresAt.toISOString()}` : 'does not expire'}) in ${store.where}`,
    );
    // a secret the caller supplied is not echoed: they have it, and it should not reach a terminal log twice
    if (opts.secret !== undefined) return;
    console.log('secret — shown only now; store it safely:\n');
    console.log(`  ${token}\n`);
  } finally {
    await store.close();
  }
}

async function list(json: boolean) {
  const store = await openCliStore();
  try {
    const rows = await store.db
      .selectFrom('api_tokens')
      .select(['id', 'name', 'role', 'node_id', 'created_at', 'expires_at', 'revoked_at', 'last_used_at'])
      .orderBy('id')
      .execute();
    const now = new Date();
    const out = rows.map((r) => ({
      id: r.id,
      name: r.name,
      role: r.role,
      node: r.node_id ?? '',
      created: r.created_at.toISOString(),
      expires: r.expires_at?.toISOString() ?? 'never',
      last_used: r.last_used_at?.toISOString() ?? 'never',
      state: r.revoked_at ? `revoked ${r.revoked_at.toISOString()}` : r.expires_at && r.expires_at <= now ? 'expired' : 'active',
    }));
    if (json) return console.log(JSON.stringify(out, null, 2));
    if (!out.length) return console.log(`no tokens in ${store.where}`);
    const cols = ['id', 'name', 'role', 'node', 'created', 'expires', 'last_used', 'state'] as const;
    const width = Object.fromEntries(cols.map((c) => [c, Math.max(c.length, ...out.map((o) => String(o[c]).length))]));
    const line = (o: Record<string, unknown>) =>
      cols
        .map((c) => String(o[c]).padEnd(width[c]))
        .join('  ')
        .trimEnd();
    console.log(line(Object.fromEntries(cols.map((c) => [c, c.toUpperCase()]))));
    for (const o of out) console.log(line(o));
  } finally {
    await store.close();
  }
}

async function revoke(target: string | undefined) {
  if (!target) throw new UsageError('revoke needs the token id or name');
  const store = await openCliStore();
  try {
    const n = await revokeToken(store.db, target);
    if (!n) throw new Error(`no active token with id or name "${target}" in ${store.where}`);
    console.log(`revoked ${n} token${n > 1 ? 's' : ''} "${target}"`);
  } finally {
    await store.close();
  }
}

await runCli(async () => {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        role: { type: 'string' },
        name: { type: 'string' },
        expires: { type: 'string' },
        node: { type: 'string' },
        secret: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(HELP);
    if (!values.help) process.exitCode = 2;
    return;
  }
  if (command === 'create') return create(values);
  if (command === 'list') return list(Boolean(values.json));
  if (command === 'revoke') return revoke(rest[0]);
  if (command === 'generate') return console.log(generateToken());
  throw new UsageError(`unknown command "${command}": expected create, list, revoke or generate`);
});
