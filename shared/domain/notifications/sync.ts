import { sql } from 'kysely';
import type { Db } from '#store/tables';

/**
 * Rule synchronisation (E23): every (template, target of the template's target type) pair that
 * has no rule row at all — live or tombstoned, auto or custom — gets a default `auto` rule: active, shown in
 * the UI, other channels off, the template's default config. A pair with any row is left alone, so what an
 * operator deleted stays deleted and what they customised is not duplicated.
 *
 * Run it inside the transaction that changed templates, targets or rules (E23, the seed loader, and whatever
 * adds targets). Idempotent; returns the number of rules created.
 */
export async function synchroniseRules(db: Db): Promise<number> {
  const res = await db
    .insertInto('notification_rules')
    .columns(['template_key', 'target_key', 'kind', 'active', 'ui_enabled', 'config'])
    .expression((eb) =>
      eb
        .selectFrom('notification_templates as t')
        .innerJoin('notification_targets as g', 'g.target_type', 't.target_type')
        .select([
          't.key as template_key',
          'g.key as target_key',
          sql.lit('auto').as('kind'),
          sql.lit(true).as('active'),
          sql.lit(true).as('ui_enabled'),
          't.default_config',
        ])
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('notification_rules as r').select('r.id').whereRef('r.template_key', '=', 't.key').whereRef('r.target_key', '=', 'g.key'))),
        ),
    )
    .onConflict((oc) => oc.doNothing()) // only a concurrent synchronisation can get here first
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0);
}
