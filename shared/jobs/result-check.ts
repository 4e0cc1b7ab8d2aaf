import { isTaskKind } from '#shared/agent-api/task-kinds';
import { resultValidator } from './result-validators.ts';

/**
 * Why a successful task's result is not what its kind declares (shared/agent-api/task-kinds.ts), or null when it is: the
 * control plane's outcomes read the result as the kind's type, so a result that is not one must never reach them.
 * A kind this control plane does not know has no schema to check against.
 */
export async function resultProblem(kind: string, result: unknown): Promise<string | null> {
  if (!isTaskKind(kind)) return null;
  const validate = await resultValidator(kind);
  if (validate(result === undefined ? null : result)) return null;
  const problems = (validate.errors ?? []).slice(0, 5).map((e) => `result${e.instancePath.replaceAll('/', '.')}: ${e.message ?? 'is invalid'}`);
  return `the agent reported a ${kind} result that does not match the kind's schema (${problems.join('; ') || 'invalid'})`;
}
