import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { addressRefusal, type Cidr } from './address-policy.ts';
import { OutboundFailure } from './failure.ts';

/**
 * Resolve once, check every address, connect to the checked one: a host name is looked up once, every address it
 * resolves to must pass the address policy (one refused address refuses the host, so a name that mixes a public
 * and an internal address cannot be raced), and the caller connects to the returned address — never looking the
 * name up again, so a rebinding DNS server cannot swap a checked address for an internal one.
 */
export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;
export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

export interface Pinned {
  address: string;
  family: 4 | 6;
}

/** A connection the address policy refuses: the host as given, the address it is or resolves to, its range. */
export class AddressRefused extends OutboundFailure {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`address not allowed: ${range}`);
  }
}

/** URL hostnames keep IPv6 literals in brackets; WHATWG parsing has already normalised IPv4 spellings. */
export const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * The address to connect to for `host` (a name or an IP literal), checked against the policy and `allow`.
 * Throws AddressRefused, or OutboundFailure with the resolver's error code (`ENOTFOUND`) or `ETIMEDOUT` once
 * `signal` aborts.
 */
export async function resolvePinned(host: string, allow: readonly Cidr[], resolve: Resolver = systemResolver, signal?: AbortSignal): Promise<Pinned> {
  const bare = bareHost(host);
  let addresses: Pinned[];
  if (isIP(bare)) addresses = [{ address: bare, family: isIP(bare) as 4 | 6 }];
  else {
    const found = await raceAbort(resolve(bare), signal).catch((err: { code?: unknown }) => {
      if (err instanceof OutboundFailure) throw err;
      throw new OutboundFailure(typeof err?.code === 'string' && /^E[A-Z_]{2,30}$/.test(err.code) ? err.code : 'ENOTFOUND');
    });
    addresses = found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
  if (addresses.length === 0) throw new OutboundFailure('ENOTFOUND');
  for (const a of addresses) {
    const why = addressRefusal(a.address, allow);
    if (why) throw new AddressRefused(bare, a.address, why);
  }
  return addresses[0]!;
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(new OutboundFailure('ETIMEDOUT'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new OutboundFailure('ETIMEDOUT'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A `lookup` for node:net/http/tls that answers the pinned address whatever it is asked: the request keeps its
 * URL's host name (Host header, TLS SNI and certificate check) while the socket goes to the checked address.
 */
export function pinnedLookup(to: Pinned) {
  return (_host: string, options: { all?: boolean } | number | undefined, callback: (...args: unknown[]) => void) => {
    if (typeof options === 'object' && options?.all) callback(null, [{ address: to.address, family: to.family }]);
    else callback(null, to.address, to.family);
  };
}
