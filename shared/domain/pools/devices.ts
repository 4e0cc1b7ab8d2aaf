import { conflict, notFound } from '#shared/errors/domain-errors';
import type { Db } from '#store/tables';

/**
 * A device as E7 accepts it (1–24 chars): a device name (`ada1p3`, a vdev GUID) or a GEOM label of one of
 * FreeBSD's label classes (`gpt/disk3`, `gptid/…`, `diskid/…`, `label/…`, `ufsid/…`), optionally as its `/dev/`
 * path. No other slash and no `.`/`..` name: `../dev/da1` or `/dev/../da1` would name a device the in-use
 * check never compared against. A leading `-` would read as a zpool option.
 */
export const deviceNameSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 24,
  pattern: '^(/dev/)?((gpt|gptid|diskid|label|ufsid)/)?(?!\\.\\.?$)[A-Za-z0-9_.:+][A-Za-z0-9_.:+-]*$',
} as const;

/** Pool GUIDs are unsigned 64-bit integers printed in decimal. */
export const poolGuidSchema = { type: 'string', minLength: 1, maxLength: 20, pattern: '^[0-9]+$' } as const;

/** zpool prints `ada1p3` for `/dev/ada1p3`; both name the same device (the schema allows nothing else). */
const normaliseDevice = (name: string) => name.replace(/^\/dev\//, '');

interface PoolRef {
  guid: string;
  name: string;
  nodeId: string;
}

export async function findPool(db: Db, guid: string): Promise<PoolRef | undefined> {
  const row = await db.selectFrom('pools').select(['guid', 'name', 'node_id']).where('guid', '=', guid).executeTakeFirst();
  return row && { guid: row.guid, name: row.name, nodeId: row.node_id };
}

export async function requirePool(db: Db, guid: string): Promise<PoolRef> {
  const pool = await findPool(db, guid);
  if (!pool) throw notFound('pool_not_found', `pool ${guid} does not exist`);
  return pool;
}

/**
 * E7's rules against the node's reported inventory: `old` must be a device (leaf vdev) of the pool, named as
 * zpool names it or by its GUID; `new` must not be a device of any pool on that node — except one of this
 * pool's own available hot spares, which is exactly how zpool activates a spare. Returns the device names to
 * hand to `zpool replace`.
 */
export async function checkReplacement(db: Db, pool: PoolRef, oldDevice: string, newDevice: string): Promise<{ old: string; new: string }> {
  const old = normaliseDevice(oldDevice);
  const replacement = normaliseDevice(newDevice);
  const inPool = await db
    .selectFrom('pool_devices')
    .select(['name', 'guid', 'state'])
    .where('pool_guid', '=', pool.guid)
    .where('leaf', '=', true)
    .where((eb) => eb.or([eb('name', '=', old), eb('name', '=', `/dev/${old}`), eb('guid', '=', old)]))
    .executeTakeFirst();
  if (!inPool) throw conflict('device_not_in_pool', `body.old: device ${oldDevice} is not in pool ${pool.name}`);

  const users = await db
    .selectFrom('pool_devices')
    .innerJoin('pools', 'pools.guid', 'pool_devices.pool_guid')
    .select(['pools.name as pool', 'pools.guid as guid', 'pool_devices.state as state'])
    .where('pool_devices.node_id', '=', pool.nodeId)
    .where('pool_devices.leaf', '=', true)
    .where((eb) => eb.or([eb('pool_devices.name', '=', replacement), eb('pool_devices.name', '=', `/dev/${replacement}`)]))
    .execute();
  const blocking = users.find((u) => !(u.guid === pool.guid && u.state === 'AVAIL'));
  if (blocking) throw conflict('device_in_use', `body.new: device ${newDevice} is already in use by pool ${blocking.pool}`);
  // a missing disk is named by its GUID, as zpool status shows it (`316502962686821739  UNAVAIL  was /dev/ada1p3`)
  return { old: inPool.state === 'UNAVAIL' && inPool.guid ? inPool.guid : inPool.name, new: replacement };
}
