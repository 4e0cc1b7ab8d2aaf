import type { PayloadValidator, ResultValidator } from '#generated/task-results.js';
import type { TaskKind } from '#shared/agent-api/task-kinds';

/** One task kind's compiled validators (scripts/build/compile-task-results.ts): of its result and of its payload. */
export interface KindValidators<K extends TaskKind> {
  result: ResultValidator<K>;
  payload: PayloadValidator<K>;
}

/**
 * One task kind's validators, loaded when a task of that kind first needs them (the module loader keeps them):
 * the finish route and the outcomes handle every kind, and all of them together are ≈ 33 KB of a bundle.
 * Function bundles load the kind's file shipped beside the bundle instead (scripts/build/task-results-beside.ts).
 */
export function kindValidators<K extends TaskKind>(kind: K): Promise<KindValidators<K>> {
  return import(`#generated/task-results/${kind}.js`);
}
