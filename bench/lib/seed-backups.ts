import { sql, type Kysely } from 'kysely';
import type { Database } from '#store/tables';

export const BENCH_NODES = ['bench-node-a', 'bench-node-b', 'bench-node-c', 'bench-node-d'];

/**
 * `events` backup events shaped like a real history: 200 jobs over 4 nodes (VM and jail datasets, 5 backup
 * hosts), each event copying its job's dataset and endpoint, 80 % success / 10 % failed / 5 % running /
 * 3 % queued / 2 % interrupted, failures with six recurring errors, and one in ten naming its snapshot (≈ 1 000 distinct texts),
 * one event every 37 s going back in time. Written set-based (one INSERT … SELECT), then ANALYZEd.
 */
export async function seedBackupEvents(db: Kysely<Database>, events: number): Promise<void> {
  await db
    .insertInto('nodes')
    .values(BENCH_NODES.map((id, i) => ({ id, name: `host${i + 1}`, ip: `10.0.0.${i + 11}`, status: 'member', inventory: '{}' })))
    .execute();
  await sql`
    INSERT INTO backup_jobs (name, node_id, mode, source_dataset, target_endpoint, schedule)
    SELECT 'job-' || j,
           (ARRAY[${sql.join(BENCH_NODES)}])[1 + j % 4],
           CASE WHEN j % 5 = 0 THEN 'full' ELSE 'incremental' END,
           CASE WHEN j % 2 = 0 THEN 'tank/vms/vm-' || (100 + j) || '/disk0' ELSE 'zroot/jails/web' || j END,
           'ssh://backup' || (1 + j % 5) || '.example.net/pool' || (j % 3) || '/replica',
           '0 ' || (j % 24) || ' * * *'
    FROM generate_series(1, 200) AS j
  `.execute(db);
  await sql`
    WITH jobs AS (SELECT id, node_id, mode, source_dataset, target_endpoint, row_number() OVER (ORDER BY id) - 1 AS k FROM backup_jobs WHERE node_id LIKE 'bench-node-%'),
    gen AS (
      SELECT i,
             CASE WHEN i % 100 < 80 THEN 'success' WHEN i % 100 < 90 THEN 'failed' WHEN i % 100 < 95 THEN 'running'
                  WHEN i % 100 < 98 THEN 'queued' ELSE 'interrupted' END AS status,
             now() - make_interval(secs => i * 37) AS t
      FROM generate_series(1, ${events}::int) AS i
    )
    INSERT INTO backup_events (job_id, node_id, mode, source_dataset, target_endpoint, status, output, error, created_at, started_at, completed_at, updated_at)
    SELECT jobs.id, jobs.node_id, jobs.mode, jobs.source_dataset, jobs.target_endpoint, gen.status,
           'sent ' || (i * 7919 % 100000) || ' KiB',
           CASE WHEN gen.status <> 'failed' THEN ''
                WHEN (i / 100) % 10 = 0 THEN 'cannot receive incremental stream: snapshot ' || split_part(jobs.source_dataset, '/', 1) || '@auto-' || i || ' does not exist'
                ELSE (ARRAY['cannot receive: destination has been modified since most recent snapshot',
                            'ssh: connect to host backup.example.net port 22: Connection timed out',
                            'cannot open ''tank/vms'': dataset does not exist',
                            'cannot send: dataset is busy',
                            'out of space on target pool',
                            'checksum mismatch in received stream'])[1 + i % 6] END,
           gen.t - interval '5 seconds',
           CASE WHEN gen.status = 'queued' THEN NULL ELSE gen.t END,
           CASE WHEN gen.status IN ('success', 'failed', 'interrupted') THEN gen.t + make_interval(secs => 30 + i % 600) ELSE NULL END,
           gen.t + interval '1 minute'
    FROM gen JOIN jobs ON jobs.k = gen.i % 200
  `.execute(db);
  await sql`ANALYZE`.execute(db);
}
