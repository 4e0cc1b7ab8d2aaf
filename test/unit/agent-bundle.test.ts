/**
 * Hosts run dist/agent/agent.js, which must hold no simulator code; npm start and the tests run
 * dist/simulator/agent.js, the same agent plus the host simulator. Both are built by npm test's ensure-built
 * step. A bundle's source map lists every module esbuild put in it: that is what is checked, and a string
 * only the simulator's commands print (OpenZFS's error for a missing dataset, which no driver matches on) as a
 * second witness. (Setting names are no witness: every bundle carries the whole settings table.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const SIMULATOR_DIR = `${resolve('simulator')}/`;
const SIMULATOR_MARKER = 'dataset does not exist';

/** The absolute paths of the modules a bundle was made of, from its source map. */
function bundledModules(bundle: string): string[] {
  const js = readFileSync(bundle, 'utf8');
  expect(js).toMatch(/\/\/# sourceMappingURL=agent\.js\.map\s*$/);
  const map = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
  return map.sources.map((s) => resolve(dirname(bundle), s));
}

describe('agent bundles', () => {
  test('the production agent contains no simulator module', () => {
    const modules = bundledModules('dist/agent/agent.js');
    expect(modules).toContain(resolve('agent/main.ts'));
    expect(modules).toContain(resolve('agent/executors/ssh.ts'));
    expect(modules.filter((m) => m.startsWith(SIMULATOR_DIR))).toEqual([]);
    expect(readFileSync('dist/agent/agent.js', 'utf8')).not.toContain(SIMULATOR_MARKER);
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
