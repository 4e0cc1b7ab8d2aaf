import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.ts';

/**
 * Every migration, in order. Listed statically (not read from disk) so the scripts and the agent
 * can be bundled. Later capabilities append their own files here.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
};
