import type { Kysely } from 'kysely';
import { notFound } from '#shared/errors/domain-errors';
import type { Database } from '#store/tables';
import { vmConfigOf } from './guests.ts';
import { macObjectsOf } from './mac-objects.ts';
import { vmOptionsView } from './secrets.ts';

/**
 * A VM as the API shows it (GET /api/vm/{rid}). The VNC password never leaves the host's domain XML; cloud-init
 * user data and meta-data are write-only except to readers who may read them back (operators).
 */
export async function getVmView(db: Kysely<Database>, rid: number, mayReadCloudInit = false) {
  const row = await db.selectFrom('guests').selectAll().where('id', '=', rid).where('type', '=', 'vm').executeTakeFirst();
  if (!row) throw notFound('vm_not_found', `vm ${rid} does not exist`);
  const config = vmConfigOf(row);
  const macs = await macObjectsOf(db, rid);
  return {
    rid: row.id,
    name: row.name,
    nodeId: row.node_id,
    state: row.state,
    domain: config.domain,
    options: vmOptionsView(config.options, mayReadCloudInit),
    macObjects: macs.map((m) => ({ id: m.id, mac: m.mac, sharedWith: m.otherVmIds })),
    datasets: config.datasets,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
