import type { SimHost } from '#shared/seed/host/schema';

/**
 * The simulated host's files (configuration files, hook scripts, runtime registrations): a flat map from
 * absolute path to content and mode, plus explicitly created directories. A directory also exists when
 * anything lies below it. Used by the file commands (commands/files.ts) and by command families that read
 * or write files themselves (jail(8) reading its conf, zfs send/recv carrying a dataset's files).
 */
export interface SimFile {
  content: string;
  /** octal, as chmod takes it */
  mode: string;
}

type WithFiles = SimHost & { files?: Record<string, SimFile>; dirs?: string[] };

export const normalizePath = (p: string) => {
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (!seg || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return `/${parts.join('/')}`;
};

const parentOf = (p: string) => (p === '/' ? null : p.slice(0, p.lastIndexOf('/')) || '/');

function files(state: SimHost): Record<string, SimFile> {
  const s = state as WithFiles;
  return (s.files ??= {});
}
function dirs(state: SimHost): string[] {
  const s = state as WithFiles;
  return (s.dirs ??= []);
}

export function readFile(state: SimHost, path: string): string | null {
  return files(state)[normalizePath(path)]?.content ?? null;
}

export function isFile(state: SimHost, path: string): boolean {
  return Object.hasOwn(files(state), normalizePath(path));
}

export function isDir(state: SimHost, path: string): boolean {
  const p = normalizePath(path);
  if (p === '/') return true;
  if (dirs(state).includes(p)) return true;
  const prefix = `${p}/`;
  return Object.keys(files(state)).some((f) => f.startsWith(prefix)) || dirs(state).some((d) => d.startsWith(prefix));
}

/** Creates the directory and its parents (mkdir -p). */
export function makeDirs(state: SimHost, path: string): void {
  for (let p: string | null = normalizePath(path); p && p !== '/'; p = parentOf(p)) if (!dirs(state).includes(p)) dirs(state).push(p);
}

/** Writes a file; its directory must exist unless `createParents`. Returns false when it does not. */
export function writeFile(state: SimHost, path: string, content: string, mode?: string, createParents = false): boolean {
  const p = normalizePath(path);
  const parent = parentOf(p)!;
  if (!isDir(state, parent)) {
    if (!createParents) return false;
    makeDirs(state, parent);
  }
  const prev = files(state)[p];
  files(state)[p] = { content, mode: mode ?? prev?.mode ?? '644' };
  return true;
}

export function chmod(state: SimHost, path: string, mode: string): boolean {
  const f = files(state)[normalizePath(path)];
  if (!f) return false;
  f.mode = mode;
  return true;
}

export function removeFile(state: SimHost, path: string): boolean {
  return delete files(state)[normalizePath(path)];
}

/** Removes a directory tree (rm -rf); true when anything was there. */
export function removeTree(state: SimHost, path: string): boolean {
  const p = normalizePath(path);
  const prefix = p === '/' ? '/' : `${p}/`;
  let any = removeFile(state, p);
  for (const f of Object.keys(files(state))) if (f.startsWith(prefix)) any = delete files(state)[f] || any;
  const s = state as WithFiles;
  const before = dirs(state).length;
  s.dirs = dirs(state).filter((d) => d !== p && !d.startsWith(prefix));
  return any || s.dirs.length !== before;
}

/** Names directly inside a directory, sorted (ls -1). */
export function listDir(state: SimHost, path: string): string[] {
  const p = normalizePath(path);
  const prefix = p === '/' ? '/' : `${p}/`;
  const names = new Set<string>();
  for (const f of [...Object.keys(files(state)), ...dirs(state)]) {
    if (f.startsWith(prefix) && f.length > prefix.length) names.add(f.slice(prefix.length).split('/')[0]);
  }
  return [...names].sort();
}

/** Every file below a directory, by path relative to it (zfs send of a dataset's tree). */
export function filesBelow(state: SimHost, path: string): Record<string, SimFile> {
  const p = normalizePath(path);
  const prefix = p === '/' ? '/' : `${p}/`;
  const out: Record<string, SimFile> = {};
  for (const [f, v] of Object.entries(files(state))) if (f.startsWith(prefix)) out[f.slice(prefix.length)] = { ...v };
  return out;
}

/** Moves a file or a directory tree (mv). */
export function move(state: SimHost, from: string, to: string): boolean {
  const a = normalizePath(from);
  const b = normalizePath(to);
  if (isFile(state, a)) {
    files(state)[b] = files(state)[a];
    delete files(state)[a];
    return true;
  }
  if (!isDir(state, a)) return false;
  const below = filesBelow(state, a);
  removeTree(state, a);
  makeDirs(state, b);
  for (const [rel, f] of Object.entries(below)) writeFile(state, `${b}/${rel}`, f.content, f.mode, true);
  return true;
}
