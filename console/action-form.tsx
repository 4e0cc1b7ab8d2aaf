import type { ComponentChildren } from 'preact';
import { useAction } from './load.tsx';
import { said } from './messages.ts';
import { canAct } from './state.ts';
import { refreshTasks } from './tasks.tsx';

/**
 * A form that submits its fields to one call and shows the API's answer as a sentence. With `reset`, a success
 * empties the form, so a typed secret does not stay in the page.
 */
export function ActionForm(props: { label: string; children: ComponentChildren; submit: (f: FormData) => Promise<string>; reset?: boolean }) {
  const act = useAction();
  return (
    <form
      class="action"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        const form = e.currentTarget;
        const f = new FormData(form);
        void act.run(async () => {
          const message = await props.submit(f);
          if (props.reset) form.reset();
          await refreshTasks();
          return said(message);
        });
      }}
    >
      <fieldset disabled={!canAct()}>
        <legend>{props.label}</legend>
        {props.children}
        <button type="submit">{props.label}</button>
      </fieldset>
      <act.Answer />
    </form>
  );
}
