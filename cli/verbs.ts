import type { Command } from 'commander';
import { clientFor, flagsOf, perform, type Io } from './context.ts';
import { findNode, inventories, listNodes } from './cluster-lookup.ts';
import { human, json, safe, table } from './output.ts';
import { resolveRef } from './resolve-refs.ts';
import { CANCEL_TOO_LATE, cancelTask } from './task-cancel.ts';
import { watchTask } from './watch.ts';
import type { ApiData } from '#generated/api-types.ts';

/** The daily commands, by name rather than by route: nodes, jails, VMs, tasks, a migration, a device replacement … */
/** A power answer without a task: the guest was already as asked, said in words (the API's 200 `outcome: unchanged`). */
const unchanged = (guest: string) => (data: unknown) => {
  const d = data as { state?: unknown; outcome?: unknown };
  return d.outcome === 'unchanged' ? `${guest} is already ${safe(String(d.state), true)}: nothing to do\n` : human(data);
};

export function addVerbs(program: Command, io: Io): void {
  const print = (cmd: Command, rows: Record<string, unknown>[], columns: string[]) =>
    void io.stdout.write(flagsOf(cmd).json ? json(rows) : table(rows, columns));

  program
    .command('nodes')
    .description('cluster nodes: membership, online state, last heartbeat')
    .addHelpText('after', '\nExample:\n  hostmgr nodes --json\n')
    .action(async (_o, cmd: Command) =>
      print(cmd, (await listNodes(clientFor(cmd, io))) as unknown as Record<string, unknown>[], ['name', 'id', 'ip', 'status', 'online', 'lastSeenAt']),
    );

  for (const [verb, section, key, columns] of [
    ['jails', 'jails', 'ctid', ['ctid', 'name', 'node', 'state', 'hostname', 'dataset']],
    ['vms', 'vms', 'rid', ['rid', 'name', 'node', 'state', 'domain']],
  ] as const) {
    program
      .command(verb)
      .description(`${verb === 'jails' ? 'jails' : 'VMs'} of every node, as their agents last reported them`)
      .addHelpText('after', `\nExample:\n  hostmgr ${verb}\n`)
      .action(async (_o, cmd: Command) => {
        // a pending node's report is not the cluster's (a jail being moved there would show twice)
        const members = (await inventories(clientFor(cmd, io))).filter(({ node }) => node.status === 'member');
        const rows: Record<string, unknown>[] = members.flatMap(({ node, inventory }) =>
          ((inventory[section] as Record<string, unknown>[] | undefined) ?? []).map((g) => ({ ...g, node: node.name })),
        );
        rows.sort((a, b) => Number(a[key]) - Number(b[key]));
        print(cmd, rows, [...columns]);
      });
  }

  program
    .command('tasks')
    .description('tasks, newest first')
    .option('--status <status>', 'queued, running, success, failed, interrupted or cancelled')
    .option('--resource <key>', 'e.g. jail:101, pool:<guid>')
    .option('--kind <kind>', 'e.g. jail.migrate')
    .option('--node <node>', 'a node name or id')
    .addHelpText('after', '\nExample:\n  hostmgr tasks --status running\n')
    .action(async (o: { status?: string; resource?: string; kind?: string; node?: string }, cmd: Command) => {
      const client = clientFor(cmd, io);
      const query: Record<string, string> = { size: '50' };
      if (o.status) query.status = o.status;
      if (o.resource) query.resource = o.resource;
      if (o.kind) query.kind = o.kind;
      if (o.node) query.nodeId = (await findNode(client, o.node)).id;
      const page = (await client.call<ApiData['GET /api/tasks']>('GET', '/tasks', { query })).envelope.data;
      print(cmd, page.data, ['id', 'kind', 'status', 'phase', 'progress', 'resource', 'createdAt', 'error']);
    });

  const task = program.command('task').description('one task: show, watch until it ends, cancel');
  task
    .command('show <id>')
    .description('a task: status, phase, progress, output tail, error')
    .action(async (id: string, _o, cmd: Command) => perform(cmd, io, 'GET', `/tasks/${taskId(id)}`));
  task
    .command('watch <id>')
    .description('follow a task until it ends; the exit code says how it ended (0 success, 3 failed, 4 cancelled, 5 interrupted)')
    .addHelpText('after', '\nExample:\n  hostmgr task watch 57\n')
    .action(async (id: string, _o, cmd: Command) => {
      io.exitCode = await watchTask(clientFor(cmd, io), taskId(id), { stdout: io.stdout, detach: io.detach });
    });
  task
    .command('cancel <id>')
    .description('cancel a task: a queued one ends cancelled at once, a running one is stopped and undone by its agent')
    .addHelpText('after', '\nExample:\n  hostmgr task cancel 57\n')
    .addHelpText('after', `Exit code: 0 when the task ends cancelled, ${CANCEL_TOO_LATE} when it had already ended (or ended otherwise first).\n`)
    .action(async (id: string, _o, cmd: Command) => cancelTask(cmd, io, taskId(id)));

  const jail = program.command('jail').description('jail actions: start, stop, restart, migrate');
  for (const [action, what] of [
    ['start', 'start a jail as its conf defines it (its prestart/poststart hooks and CPU limits run)'],
    ['stop', 'stop a jail (its prestop/poststop hooks run)'],
    ['restart', 'stop and start a jail (a stopped one is started)'],
  ] as const) {
    jail
      .command(`${action} <jail>`)
      .description(`${what}, and follow the task; the jail by ctid or name`)
      .addHelpText('after', `\nExample:\n  hostmgr jail ${action} web01\n`)
      .action(async (ref: string, _o, cmd: Command) => {
        const ctid = await resolveRef(clientFor(cmd, io), 'jail', ref);
        await perform(cmd, io, 'POST', `/jail/${ctid}/power`, { body: { action }, view: unchanged(`jail ${ctid}`) });
      });
  }
  jail
    .command('migrate <jail>')
    .description('E20: move a jail to another node (default: the online member with the fewest guests) and follow the move')
    .option('--to <node>', 'the target node, by name or id')
    .addHelpText('after', '\nExample:\n  hostmgr jail migrate 101 --to lab-3\n')
    .action(async (ctid: string, o: { to?: string }, cmd: Command) => {
      const client = clientFor(cmd, io);
      const body = o.to ? { targetNodeUuid: (await findNode(client, o.to)).id } : {};
      await perform(cmd, io, 'POST', `/jail/${guestId(await resolveRef(client, 'jail', ctid), 'ctid')}/migrations`, { body });
    });

  const vm = program.command('vm').description('VM actions: start, stop, restart, poweroff');
  for (const [action, what] of [
    ['start', 'start a VM'],
    ['stop', 'stop a VM: ACPI shutdown, destroyed after its shutdown wait time (E6) if the guest ignores it; --force: at once'],
    ['restart', 'stop a VM as `stop` does, then start it (a shut-off one is started)'],
    ['poweroff', 'power a VM off at once (virsh destroy), whatever the guest does'],
  ] as const) {
    const c = vm
      .command(`${action} <vm>`)
      .description(`${what}, and follow the task; the VM by rid or name`)
      .addHelpText('after', `\nExample:\n  hostmgr vm ${action} 201${action === 'stop' ? ' --force' : ''}\n`);
    if (action === 'stop') c.option('--force', 'do not ask the guest: power it off at once (the same as poweroff)');
    c.action(async (ref: string, o: { force?: boolean }, cmd: Command) => {
      const rid = await resolveRef(clientFor(cmd, io), 'vm', ref);
      await perform(cmd, io, 'POST', `/vm/${rid}/power`, {
        body: { action: action === 'stop' && o.force ? 'poweroff' : action },
        view: unchanged(`VM ${rid}`),
      });
    });
  }

  program
    .command('pool')
    .description('ZFS pool actions')
    .command('replace <pool> <old> <new>')
    .description('E7: replace a device of a pool (zpool replace) and follow the resilver')
    .option('--node <node>', 'the node whose pool it is, when several nodes have a pool of that name')
    .addHelpText('after', '\nExample:\n  hostmgr pool replace tank ada1 ada9\n')
    .action(async (pool: string, oldDev: string, newDev: string, o: { node?: string }, cmd: Command) => {
      const client = clientFor(cmd, io);
      const node = o.node ? await findNode(client, o.node) : null;
      const hits = (await inventories(client)).flatMap(({ node: n, inventory }) =>
        ((inventory.pools as { name: string; guid: string }[] | undefined) ?? [])
          .filter((p) => p.name === pool && (!node || n.id === node.id))
          .map((p) => ({ ...p, node: n.name })),
      );
      if (hits.length !== 1)
        throw new Error(
          hits.length ? `pool ${pool} is on ${hits.map((h) => h.node).join(', ')}: say which with --node` : `no pool ${pool}${node ? ` on ${node.name}` : ''}`,
        );
      await perform(cmd, io, 'POST', `/zfs/pools/${hits[0].guid}/replace-device`, { body: { old: oldDev, new: newDev } });
    });

  program
    .command('backup')
    .description('backup actions')
    .command('restore <job>')
    .description("E15: restore a backup job's snapshot (default: the newest) onto its dataset, and follow the restore")
    .option('--snapshot <name>', 'the snapshot to restore, e.g. hm-backup-4-20260302T120000Z')
    .addHelpText('after', '\nExample:\n  hostmgr backup restore 4 --snapshot hm-backup-4-20260302T120000Z\n')
    .action(async (job: string, o: { snapshot?: string }, cmd: Command) =>
      perform(cmd, io, 'POST', `/cluster/backups/jobs/${guestId(job, 'job')}/restore`, { body: o.snapshot ? { snapshot: o.snapshot } : {} }),
    );

  program
    .command('cert')
    .description('certificate actions')
    .command('retry <id>')
    .description('E22: start a new issuance attempt for a managed certificate whose first issuance failed')
    .addHelpText('after', '\nExample:\n  hostmgr cert retry 7\n')
    .action(async (id: string, _o, cmd: Command) => perform(cmd, io, 'POST', `/certificates/${guestId(id, 'id')}/retry`));

  const notifications = program.command('notifications').description('notifications: list (default), count, dismiss-all');
  notifications
    .command('list', { isDefault: true })
    .description('active notifications, newest first')
    .action(async (_o, cmd: Command) => perform(cmd, io, 'GET', '/notifications'));
  notifications
    .command('count')
    .description('E25: how many notifications are active')
    .action(async (_o, cmd: Command) => perform(cmd, io, 'GET', '/notifications/count'));
  notifications
    .command('dismiss-all')
    .description('E24: dismiss every active notification')
    .addHelpText('after', '\nExample:\n  hostmgr notifications dismiss-all\n')
    .action(async (_o, cmd: Command) => perform(cmd, io, 'POST', '/notifications/dismiss-all'));
}

function guestId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw new Error(`${what}: expected a positive integer, got "${raw}"`);
  return Number(raw);
}

const taskId = (raw: string) => guestId(raw, 'task id');
