import type { ReapplySource } from './reapply-item.ts';
import { tunableReapplySource } from './tunables/settings.ts';
import { jailReapplySource } from './jails/reapply.ts';

/**
 * The capabilities whose persisted configuration an agent re-applies at start. Each adds its source here
 * (one import, one entry): e.g. tunables (E11), jail hooks (E3) and CPU limits (E4).
 */
export const reapplySources: ReapplySource[] = [
  tunableReapplySource, // E11: sysctl settings
  jailReapplySource, // E3/E4: jail hooks and CPU/memory limits
];
