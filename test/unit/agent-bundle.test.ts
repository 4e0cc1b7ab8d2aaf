/**
 * Hosts run dist/agent/agent.js, which must hold no simulator code; npm start and the tests run
 * dist/simulator/agent.js, the same agent plus the host simulator. Both are built by npm test's ensure-built
 * step. A bundle's source map lists every module esbuild put in it: that is what is checked, and a string
 * only the simulator's commands print (OpenZFS's error for a missing dataset, which no driver matches on) as a
 * second witness. (Setting names are no witness: every bundle carries the whole settings table.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

const SIMULATOR_DIR = `${resolve('simulator')}/`;
const SIMULATOR_MARKER = 'dataset does not exist';

/** The absolute paths of the modules a bundle was made of, from its source map. */
function bundledModules(bundle: string): string[] {
  const js = readFileSync(bundle, 'utf8');
  expect(js).toMatch(new RegExp(`//# sourceMappingURL=${basename(bundle).replace(/\./g, '\\.')}\\.map\\s*$`));
  const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
  return map.sources.map((s) => resolve(dirname(bundle), s));
}

/** The production agent's chunks (code it imports lazily), beside agent.js. */
const chunks = () =>
  readdirSync('dist/agent/chunks')
    .filter((f) => f.endsWith('.js'))
    .map((f) => join('dist/agent/chunks', f));

/** A bundle and the chunks it imports statically, transitively: what Node reads before the agent runs. */
function startFiles(entry: string): string[] {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    // minified static imports: `import{a as b}from"./chunks/x.js"` or `import"./chunks/x.js"` (never `import(`)
    for (const m of readFileSync(f, 'utf8').matchAll(/\bimport\s*(?:[^"'();]*?from\s*)?"(\.{1,2}\/[^"]+)"/g)) todo.push(join(dirname(f), m[1]));
  }
  return [...seen];
}

describe('agent bundles', () => {
  test('the production agent contains no simulator module', () => {
    const files = ['dist/agent/agent.js', ...chunks()];
    const modules = files.flatMap(bundledModules);
    expect(modules).toContain(resolve('agent/main.ts'));
    expect(modules).toContain(resolve('agent/executors/ssh.ts'));
    expect(modules).toContain(resolve('agent/acme/client.ts'));
    expect(modules.filter((m) => m.startsWith(SIMULATOR_DIR))).toEqual([]);
    for (const f of files) expect(readFileSync(f, 'utf8')).not.toContain(SIMULATOR_MARKER);
  });

  test('what the production agent imports lazily is not in what it reads at start', () => {
    // what Node reads at start (agent.js and the chunks it imports statically) is the idle agent's memory: an idle
    // host never needs ACME, SSH, the job handlers, or the AWS SDK (its queue calls sign with aws4; the SDK's
    // credential chain is for hosts without keys in their environment)
    const files = startFiles('dist/agent/agent.js');
    const atStart = files.flatMap(bundledModules);
    expect(atStart).toContain(resolve('agent/sqs/queue.ts'));
    expect(atStart.filter((m) => m.startsWith(resolve('node_modules/aws4/')))).not.toEqual([]);
    const lazy = [
      'node_modules/node-forge/',
      'node_modules/ssh2/',
      'node_modules/acme-client/',
      'node_modules/@aws-sdk/',
      'node_modules/@smithy/',
      'agent/doctor/',
      'agent/jobs/vm-vnc.ts',
    ];
    for (const l of lazy) expect(atStart.filter((m) => m.startsWith(resolve(l)))).toEqual([]);
    const later = chunks()
      .filter((f) => !files.includes(f))
      .flatMap(bundledModules);
    for (const l of ['node_modules/@aws-sdk/credential-provider-node/', 'node_modules/acme-client/'])
      expect(later.filter((m) => m.startsWith(resolve(l)))).not.toEqual([]);
  });

  test('the simulator build is the same agent code plus the simulator', () => {
    expect(existsSync('dist/simulator/agent.js')).toBe(true);
    const modules = bundledModules('dist/simulator/agent.js');
    for (const m of ['scripts/stack/simulated-agent.ts', 'simulator/executor.ts', 'simulator/simulator.ts', 'agent/runtime/cli.ts', 'agent/executors/ssh.ts'])
      expect(modules).toContain(resolve(m));
    expect(modules).not.toContain(resolve('agent/main.ts'));
    expect(readFileSync('dist/simulator/agent.js', 'utf8')).toContain(SIMULATOR_MARKER);
  });
});
