import type { FieldError } from '#shared/errors/domain-errors';
import { HOOK_PHASES, hookInterpreter, IN_JAIL_PHASES, isBlank, type JailHooks } from '#shared/agent-api/jail-hooks';

/**
 * E3: an enabled phase needs a non-blank script; a start/stop script's `#!` line must name its interpreter by
 * absolute path (one optional argument). Field names as the 400 lists them.
 */
export function hookProblems(hooks: JailHooks, root = 'body.hooks'): FieldError[] {
  const out: FieldError[] = [];
  for (const p of HOOK_PHASES) {
    const h = hooks[p];
    if (h.enabled && isBlank(h.script)) out.push({ field: `${root}.${p}.script`, problem: 'must not be blank when the phase is enabled' });
    else if (IN_JAIL_PHASES.includes(p) && !isBlank(h.script) && hookInterpreter(h.script) === null)
      out.push({ field: `${root}.${p}.script`, problem: "its '#!' line must be an absolute path with at most one argument" });
  }
  return out;
}
