import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import type { Role } from '#shared/auth/roles';

/** Tokens look like `hm_<43 base64url chars>`; the prefix makes leaked tokens easy to grep for. */
const TOKEN_PATTERN = /^hm_[A-Za-z0-9_-]{43}$/;

export const generateToken = (): string => `hm_${randomBytes(32).toString('base64url')}`;
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
export const isWellFormedToken = (token: string): boolean => TOKEN_PATTERN.test(token);

export interface Principal {
  tokenId: number;
  name: string;
  role: Role;
  /** set for agent tokens: the node the agent speaks for */
  nodeId: string | null;
}

interface NewToken {
  name: string;
  role: Role;
  expiresAt?: Date | null;
  nodeId?: string | null;
  /** install a known secret (HM_ADMIN_TOKEN) instead of generating one */
  secret?: string;
}

/** Installing a known secret whose token was revoked: revocation is final, the secret never works again. */
export class TokenRevokedError extends Error {
  constructor(readonly tokenId: number) {
    super(`this token (id ${tokenId}) was revoked; a revoked secret cannot be installed again: use a new one (npm run token -- generate)`);
  }
}

/**
 * Stores a new token. With a known `secret` that is stored already (HM_ADMIN_TOKEN at every npm start), the
 * existing row is reused and its role and name refreshed — unless it was revoked: then TokenRevokedError, and
 * the row stays revoked.
 */
export async function createToken(db: Kysely<Database>, spec: NewToken): Promise<{ id: number; token: string }> {
  const token = spec.secret ?? generateToken();
  const row = await db
    .insertInto('api_tokens')
    .values({
      name: spec.name,
      role: spec.role,
      token_hash: hashToken(token),
      node_id: spec.nodeId ?? null,
      expires_at: spec.expiresAt ?? null,
    })
    .onConflict((oc) => oc.column('token_hash').doUpdateSet({ role: spec.role, name: spec.name }).where('api_tokens.revoked_at', 'is', null))
    .returning('id')
    .executeTakeFirst();
  if (!row) {
    const revoked = await db.selectFrom('api_tokens').select('id').where('token_hash', '=', hashToken(token)).executeTakeFirstOrThrow();
    throw new TokenRevokedError(revoked.id);
  }
  return { id: row.id, token };
}

export async function revokeToken(db: Kysely<Database>, idOrName: string): Promise<number> {
  const q = db.updateTable('api_tokens').set({ revoked_at: new Date() }).where('revoked_at', 'is', null);
  const res = /^\d+$/.test(idOrName) ? await q.where('id', '=', Number(idOrName)).executeTakeFirst() : await q.where('name', '=', idOrName).executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** `lastUsedAt`: when the token was last noted as used (shared/auth/last-use.ts), so a recent one costs no write. */
type TokenCheck = { ok: true; principal: Principal; lastUsedAt: Date | null } | { ok: false; reason: string };

/** Resolves a bearer token to its principal, or says why it is refused (for the 401 detail). */
export async function verifyToken(db: Kysely<Database>, token: string, now = new Date()): Promise<TokenCheck> {
  if (!isWellFormedToken(token)) return { ok: false, reason: 'malformed token' };
  const row = await db
    .selectFrom('api_tokens')
    .select(['id', 'name', 'role', 'node_id', 'expires_at', 'revoked_at', 'last_used_at'])
    .where('token_hash', '=', hashToken(token))
    .executeTakeFirst();
  if (!row) return { ok: false, reason: 'unknown token' };
  if (row.revoked_at) return { ok: false, reason: 'token revoked' };
  if (row.expires_at && row.expires_at <= now) return { ok: false, reason: 'token expired' };
  return { ok: true, principal: { tokenId: row.id, name: row.name, role: row.role as Role, nodeId: row.node_id }, lastUsedAt: row.last_used_at };
}
