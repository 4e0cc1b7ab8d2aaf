import { isTaskKind } from '#shared/agent-api/task-kinds';
import { kindValidators } from './result-validators.ts';
import type { ValidationError } from '#generated/task-results.js';

/** A validator's first problems as `<what>.<path>: <message>`. */
export const problemsOf = (what: string, errors: ValidationError[] | null | undefined): string =>
  (errors ?? [])
    .slice(0, 5)
    .map((e) => `${what}${e.instancePath.replaceAll('/', '.')}: ${e.message ?? 'is invalid'}`)
    .join('; ') || 'invalid';

/**
 * Why a successful task's result is not what its kind declares (shared/agent-api/task-kinds.ts), or null when it is: the
 * control plane's outcomes read the result as the kind's type, so a result that is not one must never reach them.
 * A kind this control plane does not know has no schema to check against.
 */
export async function resultProblem(kind: string, result: unknown): Promise<string | null> {
  if (!isTaskKind(kind)) return null;
  const validate = (await kindValidators(kind)).result;
  if (validate(result === undefined ? null : result)) return null;
  return `the agent reported a ${kind} result that does not match the kind's schema (${problemsOf('result', validate.errors)})`;
}
