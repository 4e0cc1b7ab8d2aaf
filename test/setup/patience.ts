import { patient } from '../helpers/patience.ts';

/**
 * Jest reads a test's or hook's timeout from its last argument: stretch every one the suite names (see
 * `patience.ts`), keeping the runner's own properties (`.each`, `.concurrent`, `.failing` …) on the wrappers.
 */
type Timed = (...args: unknown[]) => unknown;

function stretch(name: 'test' | 'it' | 'beforeAll' | 'afterAll' | 'beforeEach' | 'afterEach') {
  const g = globalThis as unknown as Record<string, Timed>;
  const original = g[name];
  const wrapped = (...args: unknown[]) => {
    const last = args.length - 1;
    if (last > 0 && typeof args[last] === 'number') args[last] = patient(args[last] as number);
    return original(...args);
  };
  g[name] = Object.assign(wrapped, original);
}

for (const name of ['test', 'it', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach'] as const) stretch(name);
