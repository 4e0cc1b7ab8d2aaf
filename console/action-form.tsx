import { createContext, type ComponentChildren, type JSX } from 'preact';
import { useContext, useId, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { useAction } from './load.tsx';
import { said } from './messages.ts';
import { canAct } from './state.ts';
import { refreshTasks } from './tasks.tsx';

/** A field as the API names it in an error: `body.target.ssh.hostKey`, `body.ids[0]`. */
const FIELD = /(?:body|path|query)(?:\.[A-Za-z0-9_]+|\[\d+\])*/;

/**
 * The problems a 4xx envelope names, by field: its `error` lists them as `body.schedule: problem; body.name: …`
 * (a validation failure), or names one field first (`body.nodeId: cluster node … is pending`).
 */
export function fieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(err instanceof ApiError) || err.status < 400 || err.status >= 500 || !err.detail) return out;
  // a problem may itself contain "; ", so a part starts only where the next field name does
  for (const part of err.detail.split(new RegExp(`; (?=${FIELD.source}: )`))) {
    const m = new RegExp(`^(${FIELD.source}): (.+)$`, 's').exec(part);
    if (m && !(m[1] in out)) out[m[1]] = m[2];
  }
  return out;
}

/** A problem the form finds before asking the API, worded and shown like the API's own (field first). */
export const formProblem = (field: string, problem: string) => new ApiError(400, 'validation_failed', `${field}: ${problem}`);

/** Why a viewer's form is read-only, said where the form is rather than left silently disabled. */
export const ROLE_NEEDED = 'Read-only: this needs an operator or admin token.';

const FieldErrorsContext = createContext<Record<string, string>>({});

/** What a Field gives its control so the problem is announced with it. */
export type FieldAria = { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string };

/**
 * One labelled control of an ActionForm; when the API's last answer named its field (`body.schedule`), the
 * problem shows right after it and the control is marked invalid and described by it. A `nested` field (one
 * control for an object, such as a JSON text) also shows the problems of the fields inside it.
 */
export function Field(props: { label: ComponentChildren; field: string; nested?: boolean; control: (aria: FieldAria) => JSX.Element }) {
  const problems = useContext(FieldErrorsContext);
  const inside = props.nested ? Object.keys(problems).filter((k) => k.startsWith(`${props.field}.`)) : [];
  const problem = [problems[props.field], ...inside.map((k) => `${k.slice(props.field.length + 1)}: ${problems[k]}`)].filter(Boolean).join('; ');
  const base = useId();
  const id = `problem-${base}`;
  return (
    <div class="field" data-field={props.field}>
      <label for={`control-${base}`}>{props.label}</label>
      {props.control(problem ? { id: `control-${base}`, 'aria-invalid': true, 'aria-describedby': id } : { id: `control-${base}` })}
      {problem ? (
        <span class="error field-error" id={id}>
          {problem}
        </span>
      ) : null}
    </div>
  );
}

/**
 * A form that submits its fields to one call and shows the API's answer as a sentence, and each field problem
 * the answer names next to that field (Field). With `reset`, a success empties the form, so a typed secret does
 * not stay in the page. While the call is in flight the submit button is disabled (no double submit).
 */
export function ActionForm(props: { label: string; children: ComponentChildren; submit: (f: FormData) => Promise<string>; reset?: boolean }) {
  const act = useAction();
  const [problems, setProblems] = useState<Record<string, string>>({});
  return (
    <form
      class="action"
      aria-label={props.label}
      aria-busy={act.busy}
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const f = new FormData(form);
        void act.run(async () => {
          let message: string;
          try {
            message = await props.submit(f);
          } catch (err) {
            setProblems(fieldErrors(err));
            throw err;
          }
          setProblems({});
          if (props.reset) form.reset();
          await refreshTasks();
          return said(message);
        });
      }}
    >
      <FieldErrorsContext.Provider value={problems}>
        <fieldset disabled={!canAct()}>
          <legend>{props.label}</legend>
          {canAct() ? null : <p class="muted why">{ROLE_NEEDED}</p>}
          {props.children}
          <button type="submit" disabled={act.busy}>
            {act.busy ? `${props.label}…` : props.label}
          </button>
        </fieldset>
      </FieldErrorsContext.Provider>
      <act.Answer />
    </form>
  );
}
