import type { Transaction } from 'kysely';
import type { Database } from '#store/tables';
import ipaddr from 'ipaddr.js';
import { routeMath } from '../domain/network/routes.ts';
import type { Seed } from './schema.ts';

const { familyOf, parsePrefix } = routeMath(ipaddr);

/**
 * The seed's firewall NAT sections (E18): network objects, NAT rules and WireGuard clients. Checked with the
 * rest of the seed before anything is written, then upserted in the seed's transaction.
 */
type Trx = Transaction<Database>;
/** An IP address or CIDR (`addr/len` with a length the family allows). */
const isAddressOrCidr = (text: string): boolean => {
  const fam = familyOf(text);
  return !!fam && !!parsePrefix(text, fam);
};
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$/;

/** Every problem of the NAT sections, by path: bad addresses, and references to nodes or objects that exist nowhere. */
export async function natProblems(trx: Trx, seed: Seed, nodes: Set<string>): Promise<string[]> {
  const out: string[] = [];
  seed.networkObjects?.forEach((o, i) => {
    o.entries.forEach((e, j) => {
      if (!isAddressOrCidr(e) && !HOST_NAME.test(e)) out.push(`networkObjects[${i}].entries[${j}]: "${e}" is not an IP address, CIDR or host name`);
    });
    o.resolutions.forEach((r, j) => {
      if (!isAddressOrCidr(r) || r.includes('/')) out.push(`networkObjects[${i}].resolutions[${j}]: "${r}" is not an IP address`);
    });
  });
  const wanted = [...new Set((seed.natRules ?? []).flatMap((r) => (r.sourceObject ? [r.sourceObject] : [])))];
  const objects = new Set((seed.networkObjects ?? []).map((o) => o.name));
  const missing = wanted.filter((n) => !objects.has(n));
  if (missing.length) for (const o of await trx.selectFrom('network_objects').select('name').where('name', 'in', missing).execute()) objects.add(o.name);
  seed.natRules?.forEach((r, i) => {
    if (!nodes.has(r.nodeId)) out.push(`natRules[${i}].nodeId: node ${r.nodeId} is neither in this seed nor in the store`);
    if (r.sourceObject && !objects.has(r.sourceObject))
      out.push(`natRules[${i}].sourceObject: no network object named "${r.sourceObject}" in this seed or the store`);
    const fam = isAddressOrCidr(r.source) ? familyOf(r.source) : null;
    if (r.source && !fam) out.push(`natRules[${i}].source: "${r.source}" is not an IP address or CIDR`);
    else if (fam && r.family !== 'any' && fam !== r.family) out.push(`natRules[${i}].source: "${r.source}" is not of the rule's family ${r.family}`);
  });
  seed.wireguardClients?.forEach((c, i) => {
    if (!nodes.has(c.nodeId)) out.push(`wireguardClients[${i}].nodeId: node ${c.nodeId} is neither in this seed nor in the store`);
  });
  return out;
}

/** The node ids the NAT sections refer to. */
export const natNodeIds = (seed: Seed): string[] => [...(seed.natRules ?? []).map((r) => r.nodeId), ...(seed.wireguardClients ?? []).map((c) => c.nodeId)];

export interface NatSeedSummary {
  networkObjects?: number;
  natRules?: number;
  wireguardClients?: number;
}

/** Upserts objects by name, then rules by (node, name) with their object's id, then clients by (node, interface); counts the sections the seed has. */
export async function upsertNat(trx: Trx, seed: Seed, now: Date): Promise<NatSeedSummary> {
  const out: NatSeedSummary = {};
  if (seed.networkObjects) {
    for (const o of seed.networkObjects) {
      const values = { description: o.description, entries: o.entries, resolutions: o.resolutions };
      await trx
        .insertInto('network_objects')
        .values({ name: o.name, ...values })
        .onConflict((oc) => oc.column('name').doUpdateSet({ ...values, updated_at: now }))
        .execute();
    }
    out.networkObjects = seed.networkObjects.length;
  }
  if (seed.natRules) {
    const names = [...new Set(seed.natRules.flatMap((r) => (r.sourceObject ? [r.sourceObject] : [])))];
    const ids = new Map(
      names.length ? (await trx.selectFrom('network_objects').select(['id', 'name']).where('name', 'in', names).execute()).map((o) => [o.name, o.id]) : [],
    );
    for (const r of seed.natRules) {
      const values = {
        description: r.description,
        enabled: r.enabled,
        type: r.type,
        family: r.family,
        source: r.source,
        source_object_id: r.sourceObject ? ids.get(r.sourceObject)! : null,
        egress_interfaces: r.egressInterfaces,
        policy_routing: r.policyRouting,
        translate_to: r.translateTo,
      };
      await trx
        .insertInto('firewall_nat_rules')
        .values({ node_id: r.nodeId, name: r.name, ...values })
        .onConflict((oc) => oc.columns(['node_id', 'name']).doUpdateSet({ ...values, updated_at: now }))
        .execute();
    }
    out.natRules = seed.natRules.length;
  }
  if (seed.wireguardClients) {
    for (const c of seed.wireguardClients) {
      await trx
        .insertInto('wireguard_clients')
        .values({ node_id: c.nodeId, name: c.name, interface: c.interface, fib: c.fib })
        .onConflict((oc) => oc.columns(['node_id', 'interface']).doUpdateSet({ name: c.name, fib: c.fib }))
        .execute();
    }
    out.wireguardClients = seed.wireguardClients.length;
  }
  return out;
}
