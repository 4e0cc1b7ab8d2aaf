/**
 * npm run lock:platforms — completes package-lock.json with the other platforms' optional binaries.
 *
 * The registry reachable from our machines serves only Linux builds of packages such as @swc/core-* and
 * @unrs/resolver-binding-* (the darwin/win32 ones answer 404), so `npm install` leaves them out of the
 * lock file, and `npm ci` then refuses the lock as "out of sync" ("Missing: @swc/core-darwin-arm64@ from
 * lock file"). A normal lock lists them with os/cpu/libc, and npm skips those that do not fit the machine,
 * never fetching them. This adds exactly such entries (version from the parent's optionalDependencies,
 * platform from the package name). Run it after any `npm install` that changes the lock.
 */
import { readFileSync, writeFileSync } from 'node:fs';

type Entry = { version?: string; dev?: boolean; optionalDependencies?: Record<string, string>; [k: string]: unknown };
const file = 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8')) as { packages: Record<string, Entry> };

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'openbsd', 'netbsd', 'sunos', 'aix'];
const CPU: Record<string, string> = {
  x64: 'x64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: 'ia32',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  wasm32: 'wasm32',
};

function platformOf(name: string): { os?: string[]; cpu?: string[]; libc?: string[] } | null {
  const parts = name.split('/').pop()!.split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => p in CPU);
  if (!os || !cpu) return null;
  const libc =
    parts.includes('musl') || parts.includes('musleabihf') ? ['musl'] : os === 'linux' && parts.some((p) => p.startsWith('gnu')) ? ['glibc'] : undefined;
  return { os: [os], cpu: [CPU[cpu]], ...(libc ? { libc } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const parentDir = path ? `${path}/node_modules/` : 'node_modules/';
    if (lock.packages[`${parentDir}${dep}`] || lock.packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(spec)) continue; // only exact-versioned platform binaries
    lock.packages[`node_modules/${dep}`] = { version: spec, ...platform, ...(entry.dev ? { dev: true } : {}), optional: true };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} platform entries to ${file}`);
