/**
 * Whom a failed authentication is counted against (shared/auth/failed-auth.ts, countedSource) was decided with
 * ipaddr.js (isValid, process, a /64 by bytes, toString) and is now decided with node's own parsers, so that
 * every function bundle is rid of the library. The keys are stored (auth_failures.source): they must be the same
 * for every source the gateway or the viewer header can give — IPv4, IPv6 in every spelling (compressed or not,
 * upper case, leading zeros, embedded IPv4, a zone), IPv4-mapped IPv6 — and for text that is no address. (ipaddr.js
 * also read IPv4 written short, in hex or octal, `127.1`; neither source gives those: the gateway writes dotted
 * decimal and the header must pass `isIP`, so they are no address here and counted as written.)
 */
import ipaddr from 'ipaddr.js';
import { countedSource } from '#shared/auth/failed-auth';

const reference = (source: string) => {
  if (!ipaddr.isValid(source)) return source;
  const a = ipaddr.process(source);
  if (a.kind() === 'ipv4') return a.toString();
  return `${ipaddr.fromByteArray(a.toByteArray().fill(0, 8)).toString()}/64`;
};

const rnd = (n: number) => Math.floor(Math.random() * n);
const group = () => [0, 0, 1, 0xffff, rnd(0x10000), rnd(16)][rnd(6)];
const quad = () => [rnd(256), rnd(256), rnd(256), rnd(256)].join('.');
/** Groups spelled at random: full or compressed, some with leading zeros, maybe upper case. */
function spell(groups: number[]): string {
  const text = groups.map((x) => (rnd(4) === 0 ? x.toString(16).padStart(4, '0') : x.toString(16))).join(':');
  const addr = rnd(2) === 0 ? text.replace(/(^|:)0(:0)+(:|$)/, '::') : text;
  return rnd(3) === 0 ? addr.toUpperCase() : addr;
}

test('the counted source is the one ipaddr.js made of it', () => {
  const sources = [
    '',
    'unknown',
    'test-invoke-source-ip',
    '::',
    '::1',
    '::ffff:203.0.113.9',
    '::FFFF:cb00:7109',
    '0:0:0:0:0:ffff:203.0.113.9',
    'fe80::1%eth0',
    '2001:db8::1.2.3.4',
    '2001:db8:0:0:1:0:0:1',
    '2001:0:0:1::',
    '1.2.3.4',
    '255.255.255.255',
    '0.0.0.0',
  ];
  for (let i = 0; i < 3000; i++) {
    const g = Array.from({ length: 8 }, group);
    sources.push(quad(), spell(g), spell([0, 0, 0, 0, 0, 0xffff, rnd(0x10000), rnd(0x10000)]), `${spell(g.slice(0, 6))}:${quad()}`);
  }
  for (const s of sources) expect({ s, key: countedSource(s) }).toEqual({ s, key: reference(s) });
});
