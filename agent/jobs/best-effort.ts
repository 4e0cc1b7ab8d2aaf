/**
 * Best-effort steps, as an undo runs them: each failure is noted (`what: message`) in `problems` and the next
 * step still runs, so one stuck step does not leave the others undone.
 */
export function bestEffort() {
  const problems: string[] = [];
  const attempt = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (e) {
      problems.push(`${what}: ${(e as Error).message}`);
    }
  };
  return { problems, attempt };
}
