import spec from '#spec/cluster/join';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { inTransaction } from '#store/tx';
import { joinCluster } from '#domain/cluster/join';
import type { Input } from './join.schema.ts';

/** E16: 200 with the node record (a member joining again: the same, unchanged); 409 carries the conflict report. */
export const handler = endpoint<Input>(spec, async ({ body }, { db }) => {
  const { node, joined } = await inTransaction(db, (trx) => joinCluster(trx, body));
  return ok(joined ? 'cluster_joined' : 'cluster_already_member', node);
});
