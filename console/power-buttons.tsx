import { useState } from 'preact/hooks';
import { call } from './api.ts';
import type { ApiData } from './api-types.ts';
import { useAction } from './load.tsx';
import { said } from './messages.ts';
import { canAct } from './state.ts';
import { refreshTasks } from './tasks.tsx';

/** The power actions a guest page offers, with the words of its button; `confirm`: asked again, naming the guest. */
interface PowerAction {
  action: string;
  label: string;
  confirm?: boolean;
}

const JAIL: PowerAction[] = [
  { action: 'start', label: 'Start' },
  { action: 'stop', label: 'Stop', confirm: true },
  { action: 'restart', label: 'Restart' },
];
const VM: PowerAction[] = [
  { action: 'start', label: 'Start' },
  { action: 'stop', label: 'Stop', confirm: true },
  { action: 'restart', label: 'Restart' },
  { action: 'poweroff', label: 'Power off', confirm: true },
];

/**
 * Start / stop / restart (a VM also power off) on a guest page: one POST to `/api/<jail|vm>/{id}/power`. Stop
 * and power off ask first, naming the guest ("Stop VM web01 (201)?"). The queued task shows in the task panel;
 * `queued` is told its id so the page can reload its facts when the task ends.
 */
export function PowerButtons(props: { kind: 'jail' | 'vm'; id: number; name: string; queued: (taskId: number) => void }) {
  const act = useAction();
  const [asking, setAsking] = useState<PowerAction | null>(null);
  const guest = `${props.kind === 'vm' ? 'VM' : 'jail'} ${props.name} (${props.id})`;
  const run = (p: PowerAction) => {
    setAsking(null);
    void act.run(async () => {
      const res = await call<ApiData['POST /api/jail/{ctid}/power'] | ApiData['POST /api/vm/{rid}/power']>('POST', `/${props.kind}/${props.id}/power`, {
        action: p.action,
      });
      if (res.data.taskId !== null) props.queued(res.data.taskId);
      await refreshTasks();
      return said(res.message);
    });
  };
  return (
    <section class="power" aria-label="Power">
      <fieldset disabled={!canAct() || act.busy} aria-busy={act.busy}>
        <legend>Power</legend>
        {(props.kind === 'vm' ? VM : JAIL).map((p) => (
          <button key={p.action} type="button" data-power={p.action} onClick={() => (p.confirm ? setAsking(p) : run(p))}>
            {p.label}
          </button>
        ))}
      </fieldset>
      {asking ? (
        <div class="confirm" role="alertdialog" aria-label={`${asking.label} ${guest}`}>
          <p>
            {asking.action === 'poweroff'
              ? `Power off ${guest} at once? The guest is not asked to shut down: unsaved work in it is lost.`
              : `Stop ${guest}?${props.kind === 'vm' ? ' The guest is asked to shut down; it is powered off if it has not after its shutdown wait time.' : ''}`}
          </p>
          <button type="button" data-confirm={asking.action} disabled={act.busy} onClick={() => run(asking)}>
            {asking.label} {props.name}
          </button>{' '}
          <button type="button" onClick={() => setAsking(null)}>
            Cancel
          </button>
        </div>
      ) : null}
      <act.Answer />
    </section>
  );
}
