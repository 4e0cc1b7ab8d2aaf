import type { Db } from '#store/tables';

/**
 * Whether `reporter`'s claim on a guest id outranks `holder`'s: a member's guests are cluster guests, a pending
 * node's are provisional (until E16 admits it), so a member reporting an id a pending node holds takes it.
 */
export async function outranks(trx: Db, reporter: string, holder: string): Promise<boolean> {
  const rows = await trx.selectFrom('nodes').select(['id', 'status']).where('id', 'in', [reporter, holder]).execute();
  const status = new Map(rows.map((r) => [r.id, r.status]));
  return status.get(reporter) === 'member' && status.get(holder) === 'pending';
}
