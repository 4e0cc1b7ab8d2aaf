import { sql, type Kysely } from 'kysely';

/**
 * Every send of a task's message counts, failed ones too: a task whose message SQS keeps refusing must end
 * (failed, with the last send error) instead of being retried for ever. `dispatch_count` stays the number
 * of successful sends (it numbers the deduplication ids of re-sends).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE tasks
      ADD COLUMN send_attempts integer NOT NULL DEFAULT 0,
      ADD COLUMN send_error text NOT NULL DEFAULT '';
  `.execute(db);
}
