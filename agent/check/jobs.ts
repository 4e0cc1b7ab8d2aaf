import type { TaskKind, TaskPayloads } from '#shared/agent-api/task-kinds';
import { handlerFor } from '../jobs/registry.ts';
import type { ScenarioContext } from './runner.ts';

/**
 * Runs one of the agent's job handlers — the very code a task of that kind runs on the host — with the kit's
 * executor; its progress reports become note lines. Through the registry, so the kit uses what the agent would.
 */
export async function runJob<K extends TaskKind>(ctx: ScenarioContext, kind: K, payload: TaskPayloads[K]): Promise<unknown> {
  const handler = await handlerFor(kind);
  if (!handler) throw new Error(`this agent has no handler for ${kind}`);
  return handler(
    {
      exec: ctx.exec,
      task: { id: 0, kind, resource: `host-check:${kind}`, nodeId: 'host-check' },
      progress: async (phase, percent, output) => ctx.note(`${kind}: ${phase} ${percent}%${output ? ` — ${output.split('\n')[0]}` : ''}`),
      signal: ctx.signal,
    },
    payload,
  );
}
