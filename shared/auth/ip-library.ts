import type ipaddr from 'ipaddr.js';

export type IpLibrary = typeof ipaddr;

/**
 * ipaddr.js, loaded when first used (the module loader keeps it): a refused credential's failed-auth key needs it,
 * an accepted request never does, and it is ≈ 12.6 KB that every function's cold start would otherwise compile.
 * Function bundles load the copy the build writes beside them instead (scripts/build/ip-library-beside.ts).
 */
export const ipLibrary = (): Promise<IpLibrary> => import('ipaddr.js').then((m) => m.default);
