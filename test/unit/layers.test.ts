import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as esbuild from 'esbuild';

/**
 * The import rules of the product code (shared/README.md). `shared/` is a strict stack: a folder imports
 * only folders of a LOWER layer (and itself); two folders of one layer never import each other. The
 * deployables above it never import each other. The host simulator imports of the agent only the executor interface
 * it implements (a simulator that asked the agent's code what is valid could never catch the agent's mistakes); the
 * agent never imports the simulator: the hosts' agent bundle holds no simulator code.
 * Type-only imports count too: a layer must not even know the shapes of the one above it.
 *
 * The agent's contract (`shared/agent-api`: the calls, the inventory, the envelope, the task-kind table, the queue
 * message and the pure host rules the agent shares with the domain) is a leaf under the whole stack, so the agent
 * and the control plane share it without the agent carrying the control plane: it imports nothing of `shared/`.
 * The agent stands on that contract, the settings table and the logger only: never on the task protocol, the
 * domain, the store or the HTTP layer.
 */
const SHARED_LAYERS: Record<string, number> = {
  errors: 0, // imports nothing at all
  trigger: 0,
  'agent-api': 0, // the agent's contract: imports nothing of shared/
  config: 0, // the settings table; pure, the agent imports it too
  log: 0, // the logger; pure, the agent imports it too
  store: 1,
  queue: 1,
  jobs: 2,
  auth: 2,
  domain: 3,
  http: 4,
  seed: 4,
};

/** The folders of `shared/` the agent may import: its contract, the settings, the logger. */
const AGENT_SHARED = ['agent-api', 'config', 'log'];

/** Top-level folders checked, and the other top-level folders each may import. */
const TOP: Record<string, string[]> = {
  shared: [],
  functions: ['shared'],
  agent: ['shared'],
  simulator: ['shared', 'agent'], // the host simulator the agent runs against; of agent/ only SIMULATOR_MAY_IMPORT
  cli: [], // the hostmgr CLI speaks HTTP only: its contract is the OpenAPI document
};

/** The one module of agent/ the simulator may import: the executor interface it implements (types only). */
const SIMULATOR_MAY_IMPORT = ['agent/executors/executor.ts'];

const root = resolve(__dirname, '../..');
const aliases = Object.entries(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).imports as Record<string, string>).map(([from, to]) => {
  const [head, tail = ''] = to.replace(/^\.\//, '').split('*');
  return { prefix: from.replace('*', ''), head, tail };
});

function tsFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(join(root, dir));
  } catch {
    return []; // a folder that does not exist (yet)
  }
  return entries.flatMap((name) => {
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) return name === 'node_modules' ? [] : tsFiles(rel);
    return rel.endsWith('.ts') ? [rel] : [];
  });
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The repository path an import names, or undefined for a package (or generated code). */
function target(file: string, spec: string): string | undefined {
  if (spec.startsWith('.'))
    return relative(root, resolve(root, dirname(file), spec))
      .split('\\')
      .join('/');
  const alias = aliases.find((a) => spec.startsWith(a.prefix));
  if (!alias || alias.head.startsWith('.generated')) return undefined;
  return alias.head + spec.slice(alias.prefix.length) + alias.tail;
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(IMPORT)]
    .map((m) => m[1] ?? m[2])
    .map((s) => target(file, s))
    .filter((t): t is string => t !== undefined);
}

/** `shared/jobs/x.ts` → shared, jobs. */
function placeOf(path: string): { top: string; folder: string } {
  const [top, second = ''] = path.split('/');
  return { top, folder: top === 'shared' ? second.replace(/\.ts$/, '') : '' };
}

function violation(file: string, imported: string): string | undefined {
  const from = placeOf(file);
  const to = placeOf(imported);
  if (from.top !== to.top) {
    if (from.top === 'simulator' && to.top === 'agent' && !SIMULATOR_MAY_IMPORT.includes(imported))
      return `the simulator imports of agent/ only the executor interface (${SIMULATOR_MAY_IMPORT.join(', ')})`;
    if (from.top === 'agent' && to.top === 'shared' && !AGENT_SHARED.includes(to.folder)) return `agent must not import shared/${to.folder}`;
    return TOP[to.top] && !TOP[from.top].includes(to.top) ? `${from.top} must not import ${to.top}` : undefined;
  }
  if (from.top !== 'shared' || from.folder === to.folder) return undefined;
  if (from.folder === 'agent-api') return `the agent's contract (shared/agent-api) is a leaf: it must not import shared/${to.folder}`;
  const a = SHARED_LAYERS[from.folder];
  const b = SHARED_LAYERS[to.folder];
  if (a === undefined || b === undefined) return `shared/${a === undefined ? from.folder : to.folder} has no layer in test/unit/layers.test.ts`;
  if (from.folder === 'errors' || from.folder === 'trigger') return `shared/${from.folder} imports nothing`;
  if (b >= a) return `shared/${from.folder} (layer ${a}) must not import shared/${to.folder} (layer ${b})`;
  return undefined;
}

describe('layers: no folder imports one above it', () => {
  const files = Object.keys(TOP).flatMap(tsFiles);

  test('the files are found', () => {
    expect(files.filter((f) => f.startsWith('shared/')).length).toBeGreaterThan(50);
    expect(files.filter((f) => f.startsWith('functions/')).length).toBeGreaterThan(20);
    expect(files.filter((f) => f.startsWith('simulator/')).length).toBeGreaterThan(20);
  });

  test('every import follows the layer rules', () => {
    const broken = files.flatMap((f) =>
      importsOf(f).flatMap((t) => {
        const why = violation(f, t);
        return why ? [`${f} → ${t}: ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  test('shared/errors imports nothing', () => {
    for (const f of tsFiles('shared/errors')) expect(readFileSync(join(root, f), 'utf8')).not.toMatch(/^\s*import\s/m);
  });

  test('the rules catch what they forbid', () => {
    expect(violation('shared/domain/x.ts', 'shared/http/errors.ts')).toMatch(/must not import/);
    expect(violation('shared/store/tx.ts', 'shared/jobs/tasks.ts')).toMatch(/must not import/);
    expect(violation('shared/jobs/x.ts', 'shared/domain/y.ts')).toMatch(/must not import/);
    expect(violation('shared/jobs/x.ts', 'shared/auth/y.ts')).toMatch(/must not import/);
    expect(violation('shared/errors/x.ts', 'shared/store/y.ts')).toMatch(/imports nothing/);
    expect(violation('functions/a/b.ts', 'agent/c.ts')).toMatch(/functions must not import agent/);
    expect(violation('agent/c.ts', 'functions/a/b.ts')).toMatch(/agent must not import functions/);
    expect(violation('shared/http/x.ts', 'functions/a/b.ts')).toMatch(/shared must not import functions/);
    expect(violation('simulator/x.ts', 'agent/drivers/jail.ts')).toMatch(/only the executor interface/);
    expect(violation('simulator/commands/ctld.ts', 'agent/drivers/ctl-conf-check.ts')).toMatch(/only the executor interface/);
    expect(violation('simulator/x.ts', 'agent/runtime/cli.ts')).toMatch(/only the executor interface/);
    expect(violation('simulator/executor.ts', 'agent/executors/executor.ts')).toBeUndefined();
    expect(violation('agent/executors/index.ts', 'simulator/executor.ts')).toMatch(/agent must not import simulator/);
    expect(violation('shared/http/x.ts', 'shared/domain/nodes/y.ts')).toBeUndefined();
    expect(importsOf('shared/http/accept.ts')).toContain('shared/jobs/tasks.ts');
  });
});

/** What the hosts' agent bundle must never hold: the control plane's store, HTTP layer and their packages. */
const NOT_AGENT_SAFE = [
  /^shared\/(store|http|seed|queue|auth)\//,
  /^(functions|simulator|cli|scripts)\//,
  /^node_modules\/(pg|pg-[^/]+|pgpass|kysely|@electric-sql\/[^/]+|@middy\/[^/]+)\//,
];
const notAgentSafe = (inputs: string[]) => inputs.filter((f) => NOT_AGENT_SAFE.some((re) => re.test(f)));

describe('the agent stands on the wire only', () => {
  test('the wire imports nothing of the control plane, even indirectly', () => {
    const seen = new Set<string>();
    const walk = (f: string) => {
      if (seen.has(f) || !f.startsWith('shared/')) return;
      seen.add(f);
      for (const t of importsOf(f)) walk(t.endsWith('.ts') ? t : `${t}.ts`);
    };
    for (const f of tsFiles('shared/agent-api')) walk(f);
    expect([...seen].filter((f) => !f.startsWith('shared/agent-api/'))).toEqual([]);
    expect(seen.size).toBeGreaterThan(5);
  });

  test('the rules catch what they forbid', () => {
    expect(violation('agent/runtime/api.ts', 'shared/http/envelope.ts')).toMatch(/agent must not import shared\/http/);
    expect(violation('agent/jobs/x.ts', 'shared/store/tables.ts')).toMatch(/agent must not import shared\/store/);
    expect(violation('agent/cli.ts', 'cli/main.ts')).toMatch(/agent must not import cli/);
    expect(violation('agent/runtime/client.ts', 'shared/agent-api/contract.ts')).toBeUndefined();
    expect(violation('shared/agent-api/contract.ts', 'shared/domain/inventory.ts')).toMatch(/is a leaf/);
    expect(violation('shared/agent-api/contract.ts', 'shared/http/spec.ts')).toMatch(/is a leaf/);
    expect(violation('shared/agent-api/tasks.ts', 'shared/jobs/tasks.ts')).toMatch(/is a leaf/);
    expect(violation('shared/agent-api/tasks.ts', 'shared/agent-api/task-kinds.ts')).toBeUndefined();
    expect(violation('agent/jobs/x.ts', 'shared/jobs/tasks.ts')).toMatch(/agent must not import shared\/jobs/);
    expect(violation('agent/drivers/x.ts', 'shared/domain/vms/types.ts')).toMatch(/agent must not import shared\/domain/);
    expect(violation('agent/runtime/x.ts', 'shared/errors/domain-errors.ts')).toMatch(/agent must not import shared\/errors/);
    expect(violation('agent/runtime/x.ts', 'shared/trigger.ts')).toMatch(/agent must not import shared\/trigger/);
    expect(violation('agent/runtime/config.ts', 'shared/config/settings.ts')).toBeUndefined();
    expect(violation('agent/runtime/log.ts', 'shared/log/logger.ts')).toBeUndefined();
    expect(violation('shared/domain/inventory.ts', 'shared/agent-api/inventory.ts')).toBeUndefined();
    expect(notAgentSafe(['agent/main.ts', 'shared/agent-api/contract.ts', 'node_modules/ssh2/lib/client.js'])).toEqual([]);
    expect(
      notAgentSafe(['shared/store/tables.ts', 'node_modules/kysely/dist/esm/index.js', 'node_modules/@middy/core/index.js', 'node_modules/pg/lib/index.js']),
    ).toHaveLength(4);
  });

  // the hosts' bundle, dist/agent/agent.js (scripts/build.ts bundles the same entry), by esbuild's list of its inputs
  test('the agent bundle holds only agent-safe modules', async () => {
    const built = await esbuild.build({
      absWorkingDir: root,
      entryPoints: ['agent/main.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      external: ['pg-native', 'cloudflare:sockets', '*.node'],
      logLevel: 'silent',
    });
    const inputs = Object.keys(built.metafile.inputs);
    expect(inputs).toEqual(expect.arrayContaining(['agent/main.ts', 'shared/agent-api/contract.ts']));
    expect(notAgentSafe(inputs)).toEqual([]);
  });
});

describe('the web console takes from shared/ only tables that import nothing', () => {
  // the browser bundle, dist/console/main.js (scripts/build/console.ts bundles the same entry)
  test('every shared module in its bundle imports nothing', async () => {
    const built = await esbuild.build({
      absWorkingDir: root,
      entryPoints: ['console/main.tsx'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      write: false,
      metafile: true,
      loader: { '.css': 'empty' },
      logLevel: 'silent',
    });
    const fromShared = Object.keys(built.metafile.inputs).filter((f) => f.startsWith('shared/'));
    expect(fromShared).toContain('shared/domain/notifications/channel-fields.ts');
    expect(fromShared.filter((f) => importsOf(f).length)).toEqual([]);
    expect(importsOf('shared/domain/notifications/channels.ts').length).toBeGreaterThan(0); // the check can fail
  });
});
