/**
 * The browser tests' Chromium: Debian's package, provisioned by `npm test` (scripts/provision), started headless
 * with what keeps it quiet and offline — no GPU, no QUIC, no first-run, background-networking, component-update
 * or sync traffic, so a test sees only the requests its page makes.
 */
import { binaryOf, PEERS } from '#scripts/provision/peers';

export const CHROMIUM = binaryOf(PEERS.find((p) => p.env === 'CHROMIUM')!, process.env);
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
