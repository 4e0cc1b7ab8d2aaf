import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * The address this node registers with, which its peers connect to (E20 migrations, backups): `--node-ip`, else
 * the SSH executor's host — resolved to an address when it is a name, because registration accepts only IP
 * addresses — else this machine's first non-internal IPv4 address.
 */
export async function nodeAddress(cfg: { nodeIp?: string; executor: string; ssh: { host?: string } }): Promise<string> {
  if (cfg.nodeIp) return cfg.nodeIp;
  const host = cfg.executor === 'ssh' ? cfg.ssh.host : undefined;
  if (!host) return firstIpv4();
  if (isIP(host)) return host;
  return (await lookup(host, { family: 4 }).catch(() => lookup(host))).address;
}

function firstIpv4(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}
