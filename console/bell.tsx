import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from './api.ts';
import type { ApiData } from './api-types.ts';
import { Icon } from './icons.tsx';
import { poll } from './state.ts';

export const bellCount = signal<number | null>(null);
export const refreshBell = async () => {
  bellCount.value = (await api<ApiData['GET /api/notifications/count']>('GET', '/notifications/count')).active;
};

/** The notification bell: the active count (E25), polled every 10 s; opens the notifications page. */
export function Bell() {
  useEffect(() => poll(refreshBell, 10_000), []);
  const n = bellCount.value ?? 0;
  return (
    <a class="bell" href="#/notifications" aria-label={`Notifications: ${n} active`} data-count={n}>
      <Icon name="bell" />
      {n > 0 ? <span class="count">{n}</span> : null}
    </a>
  );
}
