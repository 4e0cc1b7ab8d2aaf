import ipaddr from 'ipaddr.js';
import { setting } from '#shared/config/read';

/**
 * The control plane's advertised address: where nodes reach the cluster's leader, and what a join request's
 * `leaderIp` must name. Set by `HM_ADVERTISED_IP` (an IP literal); `npm start` sets it to the loopback address it
 * serves on. Unset: null, and every join is refused as not naming this leader; not an IP literal: refused by name.
 */
export const ADVERTISED_IP_VAR = 'HM_ADVERTISED_IP';

export function advertisedIp(env: NodeJS.ProcessEnv = process.env): string | null {
  const ip = setting(ADVERTISED_IP_VAR, env);
  return ip ? normalIp(ip) : null;
}

/** One spelling per address (`::ffff:…` stays IPv6, `0:0::1` becomes `::1`), so equal addresses compare equal. */
export const normalIp = (ip: string): string => {
  const a = ipaddr.parse(ip);
  return a.kind() === 'ipv6' ? (a as ipaddr.IPv6).toRFC5952String() : a.toString();
};
