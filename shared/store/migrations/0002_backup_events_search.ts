import { sql, type Kysely } from 'kysely';

/**
 * E12 must answer within 50 ms (p95) over 100 000+ events with search + sort + page, and `last_page` needs
 * the exact number of matches. Matching a substring against every event row costs a full scan of the wide
 * table (~40 ms per 100 000 rows even with a trigram index: frequent terms match most rows). But the
 * searched text (sourceDataset, targetEndpoint, status, error) repeats heavily — events copy their job's
 * dataset and endpoint, and most errors are empty or recurring — so it is stored once per distinct value in
 * `backup_event_search_docs` and each event points at its document. A search then matches the few distinct
 * documents (trigram index for when they are many) and counts/pages events through `search_doc_id` indexes,
 * index-only. A trigger keeps `search_doc_id` current, so writers of events need not know about it.
 *
 * `last_page` needs an exact count, and counting matching events means visiting them (MVCC visibility),
 * ~20–40 ms per 100 000 until VACUUM has set the visibility map. So `backup_event_counts` holds the number of
 * events per (document, node, job), kept exact by statement-level triggers in the same transactions that
 * write events; a count is then a sum over a few hundred rows.
 *
 * Every whitelisted sort field gets a `(column, id)` btree, so a page is an index walk rather than a sort
 * of the table. The filters' columns are INCLUDEd, so even a deep page of a filtered, sorted listing is
 * found by an index-only scan (the wide rows are read only for the page itself); node and job filters get
 * composite indexes for the default order and for counting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  await sql`
    CREATE TABLE backup_event_search_docs (
      id serial PRIMARY KEY,
      -- lower(source_dataset || U+001F || target_endpoint || U+001F || status || U+001F || error)
      doc text NOT NULL
    );
    -- md5: an error text may exceed a btree entry's size limit
    CREATE UNIQUE INDEX backup_event_search_docs_doc ON backup_event_search_docs (md5(doc));
    CREATE INDEX backup_event_search_docs_trgm ON backup_event_search_docs USING gin (doc gin_trgm_ops);

    CREATE FUNCTION backup_events_search_doc() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      d text := lower(NEW.source_dataset || E'\\x1f' || NEW.target_endpoint || E'\\x1f' || NEW.status || E'\\x1f' || NEW.error);
    BEGIN
      SELECT id INTO NEW.search_doc_id FROM backup_event_search_docs WHERE md5(doc) = md5(d);
      IF NEW.search_doc_id IS NULL THEN
        INSERT INTO backup_event_search_docs (doc) VALUES (d) ON CONFLICT ((md5(doc))) DO NOTHING RETURNING id INTO NEW.search_doc_id;
        IF NEW.search_doc_id IS NULL THEN
          SELECT id INTO NEW.search_doc_id FROM backup_event_search_docs WHERE md5(doc) = md5(d);
        END IF;
      END IF;
      RETURN NEW;
    END
    $fn$;

    ALTER TABLE backup_events ADD COLUMN search_doc_id integer;
    CREATE TRIGGER backup_events_search_doc BEFORE INSERT OR UPDATE OF source_dataset, target_endpoint, status, error
      ON backup_events FOR EACH ROW EXECUTE FUNCTION backup_events_search_doc();
    -- events written before this migration
    UPDATE backup_events SET status = status;
    ALTER TABLE backup_events ALTER COLUMN search_doc_id SET NOT NULL;

    -- exact counts for last_page without visiting the events: per (document, node, job), kept by statement
    -- triggers over the transition tables (one aggregated upsert per statement, also for bulk loads)
    CREATE TABLE backup_event_counts (
      search_doc_id integer NOT NULL,
      node_id text NOT NULL,
      job_id integer NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (search_doc_id, node_id, job_id)
    );
    CREATE INDEX backup_event_counts_node ON backup_event_counts (node_id);
    CREATE INDEX backup_event_counts_job ON backup_event_counts (job_id);
    CREATE FUNCTION backup_event_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM backup_event_counts;
        RETURN NULL;
      END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO backup_event_counts AS c (search_doc_id, node_id, job_id, n)
          SELECT search_doc_id, node_id, job_id, -count(*) FROM old_rows GROUP BY 1, 2, 3
          ON CONFLICT (search_doc_id, node_id, job_id) DO UPDATE SET n = c.n + EXCLUDED.n;
      END IF;
      IF TG_OP IN ('UPDATE', 'INSERT') THEN
        INSERT INTO backup_event_counts AS c (search_doc_id, node_id, job_id, n)
          SELECT search_doc_id, node_id, job_id, count(*) FROM new_rows GROUP BY 1, 2, 3
          ON CONFLICT (search_doc_id, node_id, job_id) DO UPDATE SET n = c.n + EXCLUDED.n;
      END IF;
      RETURN NULL;
    END
    $fn$;
    -- a trigger with transition tables serves one event, hence three
    CREATE TRIGGER backup_event_counts_insert AFTER INSERT ON backup_events REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION backup_event_counts_apply();
    CREATE TRIGGER backup_event_counts_update AFTER UPDATE ON backup_events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION backup_event_counts_apply();
    CREATE TRIGGER backup_event_counts_delete AFTER DELETE ON backup_events REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION backup_event_counts_apply();
    CREATE TRIGGER backup_event_counts_truncate AFTER TRUNCATE ON backup_events
      FOR EACH STATEMENT EXECUTE FUNCTION backup_event_counts_apply();
    INSERT INTO backup_event_counts (search_doc_id, node_id, job_id, n)
      SELECT search_doc_id, node_id, job_id, count(*) FROM backup_events GROUP BY 1, 2, 3;

    DROP INDEX IF EXISTS backup_events_started;
    DROP INDEX IF EXISTS backup_events_node_started;
    DROP INDEX IF EXISTS backup_events_job;
    CREATE INDEX backup_events_search ON backup_events (search_doc_id);
    CREATE INDEX backup_events_node_search ON backup_events (node_id, search_doc_id);
    CREATE INDEX backup_events_job_search ON backup_events (job_id, search_doc_id);
    CREATE INDEX backup_events_node_started ON backup_events (node_id, started_at, id);
    CREATE INDEX backup_events_job_started ON backup_events (job_id, started_at, id);
    CREATE INDEX backup_events_sort_started ON backup_events (started_at, id) INCLUDE (search_doc_id, node_id, job_id);
    CREATE INDEX backup_events_sort_job ON backup_events (job_id, id) INCLUDE (search_doc_id, node_id);
    CREATE INDEX backup_events_sort_mode ON backup_events (mode, id) INCLUDE (search_doc_id, node_id, job_id);
    CREATE INDEX backup_events_sort_source ON backup_events (source_dataset, id) INCLUDE (search_doc_id, node_id, job_id);
    CREATE INDEX backup_events_sort_target ON backup_events (target_endpoint, id) INCLUDE (search_doc_id, node_id, job_id);
    CREATE INDEX backup_events_sort_status ON backup_events (status, id) INCLUDE (search_doc_id, node_id, job_id);
    CREATE INDEX backup_events_sort_created ON backup_events (created_at, id) INCLUDE (search_doc_id, node_id, job_id);
    CREATE INDEX backup_events_sort_completed ON backup_events (completed_at, id) INCLUDE (search_doc_id, node_id, job_id);
    CREATE INDEX backup_events_sort_updated ON backup_events (updated_at, id) INCLUDE (search_doc_id, node_id, job_id);
  `.execute(db);
}
