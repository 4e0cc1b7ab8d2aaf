import { createHash } from 'node:crypto';

/** Guest ids are one id space across the cluster (jail CTIDs and VM RIDs): 1–9999. */
const MIN_GUEST_ID = 1;
export const MAX_GUEST_ID = 9999;

/** One guest in a join's conflict report. */
export interface JoinEntry {
  guestId: number;
  guestType: 'jail' | 'vm';
  name: string;
  nodeId: string;
  /** the guest's row in the store (its id in `guests`), or 0 when the guest is only reported by its host */
  recordId: number;
}

type ConflictReason = 'invalid_guest_id' | 'guest_id_in_use' | 'guest_busy';

interface JoinConflict {
  entries: JoinEntry[];
  guestId: number;
  reason: ConflictReason;
}

/** The `data` of E16's 409. */
interface JoinConflictReport {
  conflicts: JoinConflict[];
  digest: string;
  entries: JoinEntry[];
  inFlightGuestIds: number[];
}

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** Canonical order of entries: guestId, then nodeId, then guestType (code-unit order, no locale). */
const byCanonicalOrder = (a: JoinEntry, b: JoinEntry) => cmp(a.guestId, b.guestId) || cmp(a.nodeId, b.nodeId) || cmp(a.guestType, b.guestType);

/**
 * The digest of a report: lowercase hex SHA-256 of the canonical list — the entries in canonical order, each
 * reduced to `{guestId, guestType, nodeId}`, serialised as JSON with keys in lexicographic order and no
 * whitespace (RFC 8785 for these values), e.g. `[{"guestId":7,"guestType":"jail","nodeId":"…"}]`.
 */
export function conflictDigest(entries: JoinEntry[]): string {
  const canonical = [...entries].sort(byCanonicalOrder).map((e) => ({ guestId: e.guestId, guestType: e.guestType, nodeId: e.nodeId }));
  return createHash('sha256').update(JSON.stringify(canonical), 'utf8').digest('hex');
}

const key = (e: JoinEntry) => `${e.guestId}\u0000${e.nodeId}\u0000${e.guestType}`;

/**
 * The joiner's guests checked against the members': a guest id outside 1–9999, a guest id another guest holds
 * (on a member, or twice on the joiner), and a guest with an active task (`busy`) are conflicts. Returns null
 * when there is none.
 */
export function conflictReport(joiner: JoinEntry[], members: JoinEntry[], busy: ReadonlySet<number>): JoinConflictReport | null {
  const conflicts: JoinConflict[] = [];
  const byId = new Map<number, JoinEntry[]>();
  for (const e of [...joiner, ...members]) byId.set(e.guestId, [...(byId.get(e.guestId) ?? []), e]);
  const joinerIds = [...new Set(joiner.map((e) => e.guestId))].sort((a, b) => a - b);
  for (const id of joinerIds) {
    const own = joiner.filter((e) => e.guestId === id).sort(byCanonicalOrder);
    if (!Number.isInteger(id) || id < MIN_GUEST_ID || id > MAX_GUEST_ID) conflicts.push({ entries: own, guestId: id, reason: 'invalid_guest_id' });
    const holders = byId.get(id)!;
    if (holders.length > 1) conflicts.push({ entries: [...holders].sort(byCanonicalOrder), guestId: id, reason: 'guest_id_in_use' });
    if (busy.has(id)) conflicts.push({ entries: own, guestId: id, reason: 'guest_busy' });
  }
  if (!conflicts.length) return null;
  const unique = new Map(conflicts.flatMap((c) => c.entries).map((e) => [key(e), e]));
  const entries = [...unique.values()].sort(byCanonicalOrder);
  const inFlightGuestIds = joinerIds.filter((id) => busy.has(id));
  return { conflicts, digest: conflictDigest(entries), entries, inFlightGuestIds };
}
