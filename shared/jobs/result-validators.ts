import type { ResultValidator } from '#generated/task-results.js';
import type { TaskKind } from '#shared/agent-api/task-kinds';

/**
 * One task kind's compiled result validator (scripts/build/compile-task-results.ts), loaded when a task of that
 * kind first finishes: the finish route handles every kind, and all of them together are ≈ 33 KB of its bundle.
 * Function bundles load the kind's file shipped beside the bundle instead (scripts/build/task-results-beside.ts).
 */
const loaded = new Map<TaskKind, Promise<ResultValidator>>();

export function resultValidator(kind: TaskKind): Promise<ResultValidator> {
  let v = loaded.get(kind);
  if (!v) {
    v = import(`#generated/task-results/${kind}.js`).then((m: { default: ResultValidator }) => m.default);
    loaded.set(kind, v);
  }
  return v;
}
