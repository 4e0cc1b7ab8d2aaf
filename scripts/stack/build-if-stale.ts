import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm start` serves dist/, so it builds first when dist/ is missing or older than the sources. Staleness is
 * decided by content, not mtimes (a checkout, a branch switch or a copy keeps or resets mtimes unpredictably):
 * a SHA-256 over every build input is kept in STAMP after a successful build, and a differing or missing
 * stamp means build. Hashing the inputs takes ≈ 50 ms; a build ≈ 5 s.
 */
export const STAMP = 'dist/.build-inputs.sha256';

/** What the bundles and the generated specs are made of. */
const INPUT_DIRS = ['functions', 'shared', 'agent', 'simulator', 'cli', 'scripts/build', 'console'];
const INPUT_FILES = ['scripts/build.ts', 'scripts/stack/simulated-agent.ts', 'serverless.yml', 'package.json', 'package-lock.json', 'tsconfig.json'];
/** What a start needs from a build: a function bundle, the agent (production and simulator builds), the generated specs. */
const OUTPUTS = [
  'dist/package.json',
  'dist/agent/agent.js',
  'dist/simulator/agent.js',
  'dist/cli/hostmgr.js',
  'dist/console/main.js',
  'dist/functions',
  '.generated/openapi.json',
  '.generated/functions.yml',
  // serverless.yml includes them (the console's security headers; the settings a production stage refuses)
  '.generated/edge.yml',
  '.generated/prod-refused.json',
];

function listFiles(dir: string, out: string[]): string[] {
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) listFiles(p, out);
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** The hash of every build input's path and content, and the Node version (esbuild's target can depend on it). */
export function inputsHash(root = '.'): string {
  const h = createHash('sha256').update(process.version);
  const files = [...INPUT_DIRS.flatMap((d) => listFiles(join(root, d), [])), ...INPUT_FILES.map((f) => join(root, f)).filter((f) => existsSync(f))];
  for (const f of files) h.update(`${f}\0`).update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

/** Why a build is needed, or null when dist/ is up to date. */
export function staleReason(root = '.'): string | null {
  const missing = OUTPUTS.find((o) => !existsSync(join(root, o)));
  if (missing) return `${missing} is missing`;
  if (statSync(join(root, 'dist/functions')).isDirectory() && readdirSync(join(root, 'dist/functions')).length === 0) return 'dist/functions is empty';
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return 'dist/ was not built by npm start (no build stamp)';
  return readFileSync(stamp, 'utf8').trim() === inputsHash(root) ? null : 'sources changed since the last build';
}

export class BuildFailed extends Error {}

/**
 * Runs `npm run build` (its output to this terminal) when dist/ is stale; throws BuildFailed when it fails, so
 * the stack never serves old or missing bundles.
 */
export function buildIfStale(log: (line: string) => void = console.log): 'built' | 'up to date' {
  const reason = staleReason();
  if (!reason) return 'up to date';
  log(`building (${reason})…`);
  // the hash is taken before the build: a file edited during the build makes the next start build again
  const hash = inputsHash();
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { stdio: 'inherit' });
  if (res.status !== 0)
    throw new BuildFailed(
      `the build failed (${res.error?.message ?? `exit ${res.status ?? res.signal}`}); fix the error above and run npm start again (or npm run build to see it alone)`,
    );
  writeFileSync(STAMP, `${hash}\n`);
  return 'built';
}
