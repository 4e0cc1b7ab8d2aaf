import type ipaddr from 'ipaddr.js';

export type IpLibrary = typeof ipaddr;

/**
 * ipaddr.js, loaded when first used (the module loader keeps it): a refused credential's failed-auth key needs it,
 * and the agent routes' route projection when a reported table changed; an accepted request or an unchanged table
 * never does, and it is ≈ 12.6 KB that a cold start would otherwise compile. Function bundles load the copy the
 * build writes beside them instead (scripts/build/ip-library-beside.ts).
 */
export const ipLibrary = (): Promise<IpLibrary> => import('ipaddr.js').then((m) => m.default);
