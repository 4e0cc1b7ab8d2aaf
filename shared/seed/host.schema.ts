/**
 * `$defs.host` of the seed schema: one simulated FreeBSD host of the `hosts` section. The host simulator
 * (simulator) starts from it and keeps its state in the same shape; the store loader ignores it.
 */
export { hostSchema as hostSeedSchema } from './host/schema.ts';
