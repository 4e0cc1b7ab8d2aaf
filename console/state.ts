import { signal } from '@preact/signals';
import { api, token } from './api.ts';
import type { ApiData, Role } from './api-types.ts';

export const role = signal<Role | null>(null);
export const who = signal<string>('');
export const route = signal<string>(location.hash.slice(1) || '/');
addEventListener('hashchange', () => (route.value = location.hash.slice(1) || '/'));

/** operator and admin may act; viewers only read. */
export const canAct = () => role.value === 'operator' || role.value === 'admin';
export const isAdmin = () => role.value === 'admin';

export async function loadWhoami(): Promise<void> {
  if (!token.value) return;
  const me = await api<ApiData['GET /api/auth/whoami']>('GET', '/auth/whoami');
  role.value = me.role;
  who.value = me.name;
}

/** Runs `fn` now and every `ms` while the tab is visible; returns the stop function. */
export function poll(fn: () => unknown, ms: number): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async () => {
    if (stopped) return;
    if (!document.hidden) {
      try {
        await fn();
      } catch {
        // the next tick tries again; pages show their own errors
      }
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
