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

  test('what the production agent imports lazily is not in the file it starts from', () => {
    // what Node reads at start: the idle agent's memory (an idle host never needs ACME, SSH or the job handlers)
    const atStart = bundledModules('dist/agent/agent.js');
    expect(atStart).toContain(resolve('agent/runtime/queue.ts'));
    for (const lazy of ['node_modules/node-forge/', 'node_modules/ssh2/', 'node_modules/acme-client/', 'agent/doctor/', 'agent/jobs/vm-vnc.ts'])
      expect(atStart.filter((m) => m.startsWith(resolve(lazy)))).toEqual([]);
    expect(chunks().length).toBeGreaterThan(0);
  });

  test('the simulator build is the same agent code plus the simulator', () => {
    expect(existsSync('dist/simulator/agent.js')).toBe(true);
    const modules = bundledModules('dist/simulator/agent.js');
    for (const m of ['simulator/agent.ts', 'simulator/executor.ts', 'simulator/simulator.ts', 'agent/runtime/cli.ts', 'agent/executors/ssh.ts'])
      expect(modules).toContain(resolve(m));
    expect(modules).not.toContain(resolve('agent/main.ts'));
    expect(readFileSync('dist/simulator/agent.js', 'utf8')).toContain(SIMULATOR_MARKER);
  });
});
