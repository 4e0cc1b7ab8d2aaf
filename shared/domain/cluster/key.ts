import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { DomainError, unavailable } from '#shared/errors/domain-errors';
import type { Db } from '#store/tables';

/**
 * The cluster key: the shared secret a node's admin presents to join (E16). It is random, shown once when it
 * is created or rotated, and stored only as its SHA-256 (a 256-bit random secret needs no slow hash). It never
 * reaches a log, an audit row or a response.
 */
const generateClusterKey = (): string => `hmc_${randomBytes(32).toString('base64url')}`;
const hashClusterKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** Replaces the cluster key with a new random one; returns the new key (the only time it is seen). */
export async function rotateClusterKey(db: Db): Promise<string> {
  const key = generateClusterKey();
  await db
    .insertInto('cluster_settings')
    .values({ key_hash: hashClusterKey(key) })
    .onConflict((oc) => oc.column('id').doUpdateSet({ key_hash: hashClusterKey(key), key_rotated_at: sql<Date>`now()` }))
    .execute();
  return key;
}

/** A cluster key when none is set yet (the first `npm start`): returns the new key, or null when one exists. */
export async function ensureClusterKey(db: Db): Promise<string | null> {
  const key = generateClusterKey();
  const row = await db
    .insertInto('cluster_settings')
    .values({ key_hash: hashClusterKey(key) })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row ? key : null;
}

/** When the key was last set, or null when none is. */
export async function clusterKeyRotatedAt(db: Db): Promise<Date | null> {
  const row = await db.selectFrom('cluster_settings').select('key_rotated_at').executeTakeFirst();
  return row?.key_rotated_at ?? null;
}

/**
 * 403 unless `presented` is the cluster key, compared in constant time (of the two hashes); 503 when no key
 * is set. Locks the settings row for the rest of the transaction, which also serialises joins: two nodes
 * joining at once are checked against each other's guests, never both against the state before either.
 */
export async function requireClusterKey(trx: Db, presented: string): Promise<void> {
  const row = await trx.selectFrom('cluster_settings').select('key_hash').forUpdate().executeTakeFirst();
  if (!row) throw unavailable('cluster_key_not_set', 'no cluster key is set; create one with `npm run cluster -- key rotate`');
  const given = Buffer.from(hashClusterKey(presented), 'hex');
  const stored = Buffer.from(row.key_hash, 'hex');
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) {
    throw new DomainError('forbidden', 'cluster_key_mismatch', "clusterKey does not match this cluster's key");
  }
}
