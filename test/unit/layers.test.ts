import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The import rules of the product code (shared/README.md). `shared/` is a strict stack: a folder imports
 * only folders of a LOWER layer (and itself); two folders of one layer never import each other. The
 * deployables above it never import each other; only the host simulator imports the agent (it runs the same
 * agent code), never the other way: the hosts' agent bundle holds no simulator code.
 * Type-only imports count too: a layer must not even know the shapes of the one above it.
 */
const SHARED_LAYERS: Record<string, number> = {
  errors: 0, // imports nothing at all
  trigger: 0,
  config: 0, // the settings table; pure, the agent imports it too
  log: 0, // the logger; pure, the agent imports it too
  store: 1,
  queue: 1,
  jobs: 2,
  auth: 2,
  domain: 3,
  http: 4,
  seed: 4,
  'agent-api': 5,
};

/** Top-level folders checked, and the other top-level folders each may import. */
const TOP: Record<string, string[]> = {
  shared: [],
  functions: ['shared'],
  agent: ['shared'],
  simulator: ['shared', 'agent'], // the host simulator the agent runs against in tests and demos
  cli: [], // the hostmgr CLI speaks HTTP only: its contract is the OpenAPI document
};

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
    return TOP[to.top] && !TOP[from.top].includes(to.top) ? `${from.top} must not import ${to.top}` : undefined;
  }
  if (from.top !== 'shared' || from.folder === to.folder) return undefined;
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
    expect(violation('shared/store/tx.ts', 'shared/jobs/protocol.ts')).toMatch(/must not import/);
    expect(violation('shared/jobs/x.ts', 'shared/domain/y.ts')).toMatch(/must not import/);
    expect(violation('shared/jobs/x.ts', 'shared/auth/y.ts')).toMatch(/must not import/);
    expect(violation('shared/errors/x.ts', 'shared/store/y.ts')).toMatch(/imports nothing/);
    expect(violation('functions/a/b.ts', 'agent/c.ts')).toMatch(/functions must not import agent/);
    expect(violation('agent/c.ts', 'functions/a/b.ts')).toMatch(/agent must not import functions/);
    expect(violation('shared/http/x.ts', 'functions/a/b.ts')).toMatch(/shared must not import functions/);
    expect(violation('simulator/x.ts', 'agent/drivers/jail.ts')).toBeUndefined();
    expect(violation('agent/executors/index.ts', 'simulator/executor.ts')).toMatch(/agent must not import simulator/);
    expect(violation('shared/http/x.ts', 'shared/domain/nodes/y.ts')).toBeUndefined();
    expect(importsOf('shared/http/accept.ts')).toContain('shared/jobs/tasks.ts');
  });
});
