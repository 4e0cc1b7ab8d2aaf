import type { FromSchema } from 'json-schema-to-ts';
import type { JailHookPhases } from './task-kinds.ts';

/**
 * Jail lifecycle hooks (E3): six phases, each `{enabled, script}`. Listed in the order jail(8)
 * runs them; the spec lists them alphabetically.
 */
export const HOOK_PHASES = ['prestart', 'start', 'poststart', 'prestop', 'stop', 'poststop'] as const;
export type HookPhase = (typeof HOOK_PHASES)[number];

const hookPhaseSchema = {
  type: 'object',
  properties: { enabled: { type: 'boolean' }, script: { type: 'string', maxLength: 65536 } },
  required: ['enabled', 'script'],
  additionalProperties: false,
} as const;

/** All six phases, all required (E3 replaces every phase at once). */
export const hooksSchema = {
  type: 'object',
  properties: {
    prestart: hookPhaseSchema,
    start: hookPhaseSchema,
    poststart: hookPhaseSchema,
    prestop: hookPhaseSchema,
    stop: hookPhaseSchema,
    poststop: hookPhaseSchema,
  },
  required: [...HOOK_PHASES],
  additionalProperties: false,
} as const;

type HookSetting = FromSchema<typeof hookPhaseSchema>;
export type JailHooks = FromSchema<typeof hooksSchema>;
// the task-kind table (./task-kinds.ts) declares the same shape for the jail.apply-hooks payload: keep the two identical
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<JailHooks, JailHookPhases> = true;
void sameShape;

export const isBlank = (s: string) => s.trim() === '';

/** Phases whose script runs inside the jail (jail(8)'s exec.start / exec.stop environment). */
export const IN_JAIL_PHASES: readonly HookPhase[] = ['start', 'stop'];

/**
 * The program that runs an in-jail hook, reading the script on its standard input (`jexec <jail> <program> <
 * script`): the `#!` line's absolute path and at most one argument, or /bin/sh without a `#!` line. null when
 * the `#!` line is anything else (it would be pasted into a command line the host's shell runs).
 */
export function hookInterpreter(script: string): string[] | null {
  if (!script.startsWith('#!')) return ['/bin/sh'];
  const m = /^(\/[A-Za-z0-9._+/-]+)(?:[ \t]+([A-Za-z0-9._+/=-]+))?$/.exec(script.slice(2).split('\n')[0].trim());
  return m ? [m[1], ...(m[2] ? [m[2]] : [])] : null;
}

/** A disabled phase with a blank script is cleared (stored as `{enabled:false, script:''}`); others are kept as sent. */
export function normalizeHooks(hooks: JailHooks): JailHooks {
  const out = {} as Record<HookPhase, HookSetting>;
  for (const p of HOOK_PHASES) {
    const h = hooks[p];
    out[p] = !h.enabled && isBlank(h.script) ? { enabled: false, script: '' } : { enabled: h.enabled, script: h.script };
  }
  return out;
}

export const noHooks = (): JailHooks => normalizeHooks(Object.fromEntries(HOOK_PHASES.map((p) => [p, { enabled: false, script: '' }])) as JailHooks);

/** The phases that jail(8) will run: enabled with a script. */
export const activePhases = (hooks: JailHooks): HookPhase[] => HOOK_PHASES.filter((p) => hooks[p].enabled && !isBlank(hooks[p].script));
