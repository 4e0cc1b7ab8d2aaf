import type { TaskKind, TaskPayloads, TaskResults } from '#shared/agent-api/task-kinds';
import { testDb } from './api.ts';

/**
 * Results the kinds' schemas accept (shared/agent-api/task-kinds.ts), for tests that play the agent's part and report a
 * success: the control plane fails a success whose result is not its kind's.
 */
const samples: { [K in TaskKind]?: (p: TaskPayloads[K]) => TaskResults[K] } = {
  'host.probe': (p) => ({ values: Object.fromEntries(p.sysctls.map((s) => [s, '1'])) }),
  'tunable.apply': (p) => ({ name: p.name, old: '0', new: p.value }),
  'vm.cloud-init': (p) => ({ rid: p.rid, cloudInit: Boolean(p.data || p.metadata || p.networkConfig), seedIso: null, attached: false }),
  'vm.vnc': (p) => ({
    rid: p.rid,
    vnc: { enabled: p.enabled, bind: p.bind, port: p.port, resolution: p.resolution, wait: p.wait, auth: Boolean(p.password) },
  }),
  'group.set-members': (p) => ({ group: p.group, members: p.members, added: [], removed: [] }),
};

export function sampleResult<K extends TaskKind>(kind: K, payload: TaskPayloads[K]): TaskResults[K] {
  const make = samples[kind] as ((p: TaskPayloads[K]) => TaskResults[K]) | undefined;
  if (!make) throw new Error(`test/helpers/task-results.ts has no sample result for ${kind}`);
  return make(payload);
}

/** The sample result of a stored task. */
export async function sampleResultOf(taskId: number): Promise<unknown> {
  const t = await testDb().selectFrom('tasks').select(['kind', 'payload']).where('id', '=', taskId).executeTakeFirstOrThrow();
  return sampleResult(t.kind as TaskKind, t.payload as never);
}
