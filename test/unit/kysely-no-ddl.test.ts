/**
 * Function bundles carry kysely's query compiler without its DDL, MERGE and other dialects' methods
 * (scripts/build/kysely-no-ddl.ts). Bundled here as the build does and run by node: queries of every kind the
 * functions write compile to the same SQL and parameters as stock kysely does in-process, and a DDL node or
 * MySQL's ON DUPLICATE KEY fails with the message naming the build.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { CreateTableNode, DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, TableNode, sql } from 'kysely';
import { DDL_LEFT_OUT, DDL_METHODS, kyselyNoDdl } from '#scripts/build/kysely-no-ddl';

/** The queries, as source run both here and in the bundle (`k` is kysely's module, `db` a compile-only Kysely). */
const QUERIES = `[
  db.selectFrom('nodes as n').innerJoin('tasks as t', 't.node_id', 'n.id').select(['n.id', 't.kind', (eb) => eb.fn.count('t.id').as('c')])
    .where((eb) => eb.or([eb('n.status', '=', 'member'), eb('t.id', 'in', [1, 2])])).groupBy(['n.id', 't.kind']).orderBy('c', 'desc').limit(5).offset(2),
  db.insertInto('tasks').values({ kind: 'a', payload: JSON.stringify({ x: 1 }) }).onConflict((oc) => oc.column('kind').doUpdateSet({ kind: 'b' })).returning(['id']),
  db.updateTable('nodes').set({ name: 'x', updated_at: k.sql\`now()\` }).where('id', '=', 'n1').returningAll(),
  db.deleteFrom('tasks').where('id', '<', 10).where((eb) => eb.exists(eb.selectFrom('nodes').select('id').whereRef('nodes.id', '=', 'tasks.node_id'))),
  db.with('c', (q) => q.selectFrom('tasks').select('id').where('kind', 'like', '%x%')).selectFrom('c').selectAll().forUpdate().skipLocked(),
  db.selectFrom('nodes').select((eb) => [eb.case().when('status', '=', 'member').then(1).else(0).end().as('m'), eb.ref('inventory', '->>').key('os').as('os')]).distinctOn('id'),
].map((q) => { const c = q.compile(); return { sql: c.sql, parameters: c.parameters }; })`;

const compileOnly = (k: {
  Kysely: typeof Kysely;
  DummyDriver: typeof DummyDriver;
  PostgresAdapter: typeof PostgresAdapter;
  PostgresIntrospector: typeof PostgresIntrospector;
  PostgresQueryCompiler: typeof PostgresQueryCompiler;
}) =>
  new k.Kysely<any>({
    dialect: {
      createAdapter: () => new k.PostgresAdapter(),
      createDriver: () => new k.DummyDriver(),
      createIntrospector: (db) => new k.PostgresIntrospector(db),
      createQueryCompiler: () => new k.PostgresQueryCompiler(),
    },
  });

test('the compiler without DDL compiles every kind of query as stock kysely, and refuses DDL', async () => {
  const k = { Kysely, DummyDriver, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, CreateTableNode, TableNode };
  const db = compileOnly(k);
  const stock = new Function('k', 'db', `return ${QUERIES};`)(k, db) as unknown[];
  // stock kysely compiles DDL
  expect(new PostgresQueryCompiler().compileQuery(CreateTableNode.create(TableNode.create('t')) as never, { queryId: 'q' } as never).sql).toBe(
    'create table "t" ()',
  );

  const dir = mkdtempSync(join(tmpdir(), 'hm-kysely-no-ddl-'));
  try {
    const built = await esbuild.build({
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      minify: true,
      write: true,
      logLevel: 'error',
      plugins: [kyselyNoDdl],
      stdin: { contents: "export * from 'kysely';", resolveDir: process.cwd(), loader: 'js' },
      outfile: join(dir, 'kysely.js'),
    });
    expect(built.errors).toEqual([]);
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    writeFileSync(
      join(dir, 'run.mjs'),
      [
        "import * as k from './kysely.js';",
        `const db = (${compileOnly.toString()})(k);`,
        `const queries = ${QUERIES};`,
        'let ddl = null, mysql = null;',
        "try { new k.PostgresQueryCompiler().compileQuery(k.CreateTableNode.create(k.TableNode.create('t')), { queryId: 'q' }); } catch (e) { ddl = e.message; }",
        "try { db.insertInto('t').values({ a: 1 }).onDuplicateKeyUpdate({ a: 2 }).compile(); } catch (e) { mysql = e.message; }",
        'process.stdout.write(JSON.stringify({ queries, ddl, mysql }));',
      ].join('\n'),
    );
    const run = spawnSync(process.execPath, [join(dir, 'run.mjs')], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as { queries: unknown[]; ddl: string | null; mysql: string | null };
    expect(out.queries).toEqual(JSON.parse(JSON.stringify(stock)));
    expect(out.queries).toHaveLength(6);
    expect(out.ddl).toBe(DDL_LEFT_OUT);
    expect(out.mysql).toBe(DDL_LEFT_OUT);
    // every listed method was found (a kysely upgrade that renames one shows here, not only as a build warning),
    // and each calls the one function that throws
    const bundle = (await import('node:fs')).readFileSync(join(dir, 'kysely.js'), 'utf8');
    const callees = DDL_METHODS.map((m) => new RegExp(`\\b${m}\\([^)]*\\)\\{return ([\\w$]+)\\(\\)\\}`).exec(bundle)?.[1]);
    expect(callees.filter((c) => !c)).toEqual([]);
    expect(new Set(callees).size).toBe(1);
    expect(bundle).toMatch(new RegExp(`function ${callees[0]!.replace('$', '\\$')}\\(\\)\\{throw new Error\\(`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
