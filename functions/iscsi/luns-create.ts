import spec from '#spec/iscsi/luns-create';
import { endpoint } from '#http/endpoint';
import { created } from '#http/envelope';
import { withTasks } from '#http/accept';
import { addLun } from '#domain/iscsi/add-lun';
import type { Input } from './luns-create.schema.ts';

/** E13: 201 with the LUN; the agent installs the regenerated /etc/ctl.conf (agent/jobs/iscsi-apply-config.ts). */
export const handler = endpoint<Input>(spec, async ({ path, body }, ctx) =>
  created('lun_added', await withTasks(ctx, (trx, enqueue) => addLun(trx, enqueue, path.targetId, body))),
);
