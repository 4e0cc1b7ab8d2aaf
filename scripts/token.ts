/**
 * npm run token -- create|list|revoke|generate: API tokens. Secrets are printed once, at creation; the
 * store keeps only their SHA-256 hashes. Beside a running stack it works through the stack's API (never a
 * second opener of its store); otherwise on the store directly.
 */
import { parseArgs } from 'node:util';
import { generateToken } from '#shared/auth/tokens';
import { isRole, ROLES } from '#shared/auth/roles';
import { parseExpiry as parseExpiryText } from '#cli/expiry';
import { runCli, STORE_HELP, UsageError } from './cli/store.ts';
import { tokenFormatProblem } from './cli/token-format.ts';
import { openTokenBackend } from './cli/token-backends.ts';

const HELP = `npm run token — create, list and revoke API tokens

Usage:
  npm run token -- create --role <role> --name <name> [--expires <when>] [--node <node-id>] [--secret <token>]
  npm run token -- list [--json]
  npm run token -- revoke <id|name>
  npm run token -- generate
  [--url <api> --token <admin token>]   work through that control plane's API (also HOSTMGR_URL, HOSTMGR_TOKEN)

Where it works:
  - with --url or HOSTMGR_URL: that API (an admin token: --token or HOSTMGR_TOKEN);
  - with DATABASE_URL: that database;
  - beside a running npm start (found through \${HM_LOCAL_DIR:-.local}/stack.json, on whatever ports it was given):
    its API, with the admin token npm start keeps in \${HM_LOCAL_DIR:-.local}/admin-token (or HOSTMGR_TOKEN /
    HM_ADMIN_TOKEN);
  - otherwise the embedded store's data directory, opened here under its lock; a store another process
    holds open is refused, never opened a second time.

create   prints the new token's secret once (it cannot be shown again)
           --role     ${ROLES.join(' | ')} (viewer: GETs; operator: + guest, storage, network,
                      notification, backup and note changes; admin: everything; agent: /api/agent/* only)
           --name     who or what uses it (1–100 characters)
           --expires  a duration from now (90m, 12h, 30d, 8w) or an ISO date/time (2026-01-31, 2026-01-31T12:00Z);
                      default: never
           --node     required for --role agent: the node id (host UUID) the agent speaks for
           --secret   install this secret (e.g. from generate) instead of a random one; a secret that
                      was revoked is refused (revocation is final); on a store only, not over the API
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

/** `30d` / `12h` / `90m` / `8w` from now, or an ISO date or date-time; must lie in the future. */
export function parseExpiry(value: string, now = new Date()): Date {
  try {
    return parseExpiryText(value, now);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

type Target = { url?: string; token?: string };

async function create(opts: Target & { role?: string; name?: string; expires?: string; node?: string; secret?: string }) {
  if (!opts.role || !isRole(opts.role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}${opts.role ? ` (got "${opts.role}")` : ''}`);
  const name = opts.name?.trim();
  if (!name || name.length > 100) throw new UsageError('--name is required (1–100 characters)');
  if (opts.role === 'agent' && !opts.node) throw new UsageError('--node <node-id> is required for an agent token');
  if (opts.role !== 'agent' && opts.node) throw new UsageError('--node applies to agent tokens only');
  const expiresAt = opts.expires ? parseExpiry(opts.expires) : null;
  const problem = opts.secret === undefined ? null : tokenFormatProblem('--secret', opts.secret);
  if (problem) throw new UsageError(problem);
  const backend = await openTokenBackend(opts);
  try {
    const { id, secret } = await backend.create({ name, role: opts.role, expiresAt, nodeId: opts.node ?? null, secret: opts.secret });
    console.log(
      `created token ${id} "${name}" (${opts.role}${opts.node ? ` for node ${opts.node}` : ''}, ${expiresAt ? `expires ${expiresAt.toISOString()}` : 'does not expire'}) in ${backend.where}`,
    );
    // a secret the caller supplied is not echoed: they have it, and it should not reach a terminal log twice
    if (opts.secret !== undefined) return;
    console.log('secret — shown only now; store it safely:\n');
    console.log(`  ${secret}\n`);
  } finally {
    await backend.close();
  }
}

async function list(json: boolean, target: Target) {
  const backend = await openTokenBackend(target);
  try {
    const out = (await backend.list()).map((r) => ({
      id: r.id,
      name: r.name,
      role: r.role,
      node: r.nodeId ?? '',
      created: r.createdAt,
      expires: r.expiresAt ?? 'never',
      last_used: r.lastUsedAt ?? 'never',
      state: r.revokedAt ? `revoked ${r.revokedAt}` : r.state,
    }));
    if (json) return console.log(JSON.stringify(out, null, 2));
    if (!out.length) return console.log(`no tokens in ${backend.where}`);
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
    await backend.close();
  }
}

async function revoke(target: string | undefined, where: Target) {
  if (!target) throw new UsageError('revoke needs the token id or name');
  const backend = await openTokenBackend(where);
  try {
    const n = await backend.revoke(target);
    if (!n) throw new Error(`no active token with id or name "${target}" in ${backend.where}`);
    console.log(`revoked ${n} token${n > 1 ? 's' : ''} "${target}"`);
  } finally {
    await backend.close();
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
        url: { type: 'string' },
        token: { type: 'string' },
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
  if (command === 'list') return list(Boolean(values.json), values);
  if (command === 'revoke') return revoke(rest[0], values);
  if (command === 'generate') return console.log(generateToken());
  throw new UsageError(`unknown command "${command}": expected create, list, revoke or generate`);
});
