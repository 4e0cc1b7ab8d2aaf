import type { Transaction } from 'kysely';
import type { Enqueue } from '#shared/jobs/tasks';
import { conflict } from '#shared/errors/domain-errors';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database } from '#store/tables';
import { lockShutOffVm, vmConfigOf, writeVmConfig } from './guests.ts';
import { checkVnc, type VncRequest } from './vnc-rules.ts';
import type { VmUndo } from './outcomes.ts';
import { FIRST_AUTO_VNC_PORT } from '#shared/agent-api/vm-defaults';

/**
 * E19. The port must not be another VM's on the same node while VNC is enabled: every VM row of the node
 * is locked first, so two requests claiming one port serialise and the second sees the first's claim.
 * An omitted port keeps the VM's current one, else takes the lowest free port from 5900.
 */
export async function setVnc(trx: Transaction<Database>, enqueue: Enqueue, rid: number, body: VncRequest) {
  const { bind } = checkVnc(body);
  const { vm, config } = await lockShutOffVm(trx, rid);
  const others = await trx
    .selectFrom('guests')
    .select(['id', 'config'])
    .where('node_id', '=', vm.node_id)
    .where('type', '=', 'vm')
    .where('id', '<>', rid)
    .where('state', '<>', 'orphaned')
    .forUpdate()
    .execute();
  const taken = new Map<number, number>();
  for (const o of others) {
    const v = vmConfigOf(o).options.vnc;
    if (v.enabled && v.port !== null) taken.set(v.port, o.id);
  }
  let port = body.vncPort ?? config.options.vnc.port;
  if (body.vncEnabled) {
    if (body.vncPort !== undefined && taken.has(body.vncPort)) {
      throw conflict('vnc_port_in_use', `body.vncPort: port ${body.vncPort} is used by vm ${taken.get(body.vncPort)} on node ${vm.node_id}`);
    }
    if (port === null || taken.has(port)) {
      port = FIRST_AUTO_VNC_PORT;
      while (taken.has(port)) port++;
    }
  }
  // an omitted password keeps the current one; '' clears authentication
  const auth = body.vncPassword === undefined ? config.options.vnc.auth : body.vncPassword !== '';
  const undo: VmUndo = { options: { vnc: config.options.vnc } };
  config.options.vnc = { enabled: body.vncEnabled, bind, port, resolution: body.vncResolution, wait: body.vncWait, auth };
  await writeVmConfig(trx, rid, config);
  const task = await enqueue({
    kind: 'vm.vnc',
    nodeId: vm.node_id,
    resource: resourceKey.vm(rid),
    payload: {
      rid,
      domain: config.domain,
      enabled: body.vncEnabled,
      bind,
      port,
      resolution: body.vncResolution,
      wait: body.vncWait,
      password: body.vncPassword,
    },
    undo,
  });
  return {
    rid,
    vncEnabled: body.vncEnabled,
    vncBind: bind,
    vncPort: port,
    vncResolution: body.vncResolution,
    vncWait: body.vncWait,
    vncAuth: auth,
    taskId: task.id,
  };
}
