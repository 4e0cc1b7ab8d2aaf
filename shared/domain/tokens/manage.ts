import type { Kysely, Selectable } from 'kysely';
import type { Database, ApiTokensTable } from '#store/tables';
import { inTransaction } from '#store/tx';
import { auditResource } from '#store/audit-scope';
import { createToken } from '#shared/auth/tokens';
import type { Role } from '#shared/auth/roles';
import { conflict, notFound, ValidationError } from '#shared/errors/domain-errors';

/** What the API shows of a token: never its secret nor the secret's hash. */
export interface TokenView {
  id: number;
  name: string;
  role: Role;
  nodeId: string | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  state: 'active' | 'expired' | 'revoked';
}

type Row = Pick<Selectable<ApiTokensTable>, 'id' | 'name' | 'role' | 'node_id' | 'created_at' | 'expires_at' | 'revoked_at' | 'last_used_at'>;
const COLUMNS = ['id', 'name', 'role', 'node_id', 'created_at', 'expires_at', 'revoked_at', 'last_used_at'] as const;

export function tokenView(r: Row, now = new Date()): TokenView {
  return {
    id: r.id,
    name: r.name,
    role: r.role as Role,
    nodeId: r.node_id,
    createdAt: r.created_at.toISOString(),
    expiresAt: r.expires_at?.toISOString() ?? null,
    lastUsedAt: r.last_used_at?.toISOString() ?? null,
    revokedAt: r.revoked_at?.toISOString() ?? null,
    state: r.revoked_at ? 'revoked' : r.expires_at && r.expires_at <= now ? 'expired' : 'active',
  };
}

export interface NewTokenRequest {
  name: string;
  role: Role;
  expiresAt?: string | null;
  nodeId?: string | null;
}

/** Every rule a new token's fields break, at once (the schema has checked their types and lengths). */
function check(req: NewTokenRequest, now: Date): Date | null {
  const problems: { field: string; problem: string }[] = [];
  if (req.name.trim() === '') problems.push({ field: 'name', problem: 'must not be blank' });
  let expiresAt: Date | null = null;
  if (req.expiresAt != null) {
    expiresAt = new Date(req.expiresAt);
    if (Number.isNaN(expiresAt.getTime())) problems.push({ field: 'expiresAt', problem: 'must be an ISO date-time' });
    else if (expiresAt <= now) problems.push({ field: 'expiresAt', problem: 'must lie in the future' });
  }
  if (req.role === 'agent' && !req.nodeId) problems.push({ field: 'nodeId', problem: 'is required for an agent token (the node it speaks for)' });
  if (req.role !== 'agent' && req.nodeId) problems.push({ field: 'nodeId', problem: 'applies to agent tokens only' });
  if (problems.length) throw new ValidationError(problems);
  return expiresAt;
}

/** Creates a token with a random secret; the secret is in the answer only (the store keeps its SHA-256). */
export async function createApiToken(db: Kysely<Database>, req: NewTokenRequest, now = new Date()): Promise<TokenView & { secret: string }> {
  const expiresAt = check(req, now);
  return inTransaction(db, async (trx) => {
    const { id, token } = await createToken(trx, { name: req.name.trim(), role: req.role, expiresAt, nodeId: req.nodeId ?? null });
    auditResource(`token:${id}`);
    const row = await trx.selectFrom('api_tokens').select(COLUMNS).where('id', '=', id).executeTakeFirstOrThrow();
    return { ...tokenView(row, now), secret: token };
  });
}

/** Every token, oldest first. */
export async function listApiTokens(db: Kysely<Database>, now = new Date()): Promise<TokenView[]> {
  const rows = await db.selectFrom('api_tokens').select(COLUMNS).orderBy('id').execute();
  return rows.map((r) => tokenView(r, now));
}

/** Revokes one token; requests with it answer 401 `token revoked` from then on. Revocation is final. */
export async function revokeApiToken(db: Kysely<Database>, id: number, now = new Date()): Promise<TokenView> {
  return inTransaction(db, async (trx) => {
    auditResource(`token:${id}`);
    const row = await trx.selectFrom('api_tokens').select(COLUMNS).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!row) throw notFound('token_not_found', `no token with id ${id}`);
    if (row.revoked_at) throw conflict('token_already_revoked', `token ${id} ("${row.name}") was revoked at ${row.revoked_at.toISOString()}`);
    const updated = await trx.updateTable('api_tokens').set({ revoked_at: now }).where('id', '=', id).returning(COLUMNS).executeTakeFirstOrThrow();
    return tokenView(updated, now);
  });
}
