import { resolve } from 'node:path';

/**
 * Where the test suite's ACME server (Debian's pebble, started by test/helpers/pebble.ts) listens, and the
 * CA file its TLS listener's certificate is signed by. The test stack's functions are configured with these
 * (E22 fetches the directory before queuing), so they are fixed: ports 24570–24575, below Linux's ephemeral
 * range (32768–60999), where an outgoing connection of the suite could hold one when pebble starts (they were
 * 43570–43575).
 */
export const PEBBLE_PORTS = {
  /** ACME (HTTPS) */
  acme: 24570,
  /** pebble's management interface (roots of the issuing CA) */
  management: 24571,
  /** pebble-challtestsrv's DNS, pebble's resolver */
  dns: 24572,
  /** pebble-challtestsrv's management API (add-a, clear-a) */
  dnsManagement: 24573,
  /** the agent's HTTP-01 responder (HM_ACME_HTTP_PORT): where pebble validates challenges */
  http01: 24574,
  /** pebble's TLS-ALPN-01 port (unused: the agent answers HTTP-01 only) */
  tlsAlpn: 24575,
} as const;

export const PEBBLE_DIRECTORY_URL = `https://127.0.0.1:${PEBBLE_PORTS.acme}/dir`;
/** PEM CA that signed pebble's listener certificate (written by the helper before pebble starts) */
export const pebbleCaFile = () => resolve('.local/pebble/listener-ca.pem');
