/**
 * `$defs.host` of the seed schema: one simulated FreeBSD host of the `hosts` section. The host simulator
 * defines it (agent/simulator/host-schema.ts) and reads that section; the store loader ignores it.
 */
export { hostSchema as hostSeedSchema } from '../../agent/simulator/host-schema.ts';
