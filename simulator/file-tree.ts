import type { SimHost } from '#shared/seed/host/schema';

/**
 * The simulated host's files (configuration files, hook scripts, runtime registrations): a flat map from
 * absolute path to content and mode, explicitly created directories, and symbolic links. A directory also
 * exists when anything lies below it. Used by the file commands (commands/files.ts) and by command families
 * that read or write files themselves (jail(8) reading its conf, zfs send/recv carrying a dataset's files).
 *
 * Symbolic links follow namei(9): every component of a path that is a link is replaced by the link's target
 * (an absolute target restarts at the root — the jail's root for a process inside a jail, see
 * {@link resolvePath}), and so is the last component unless the caller asks for the link itself (lstat,
 * readlink, rm, ln). More than 32 links in one lookup is ELOOP (sys/sys/param.h MAXSYMLINKS).
 */
export interface SimFile {
  content: string;
  /** octal, as chmod takes it */
  mode: string;
  /** a file's length when it is longer than its content: a sparse file made by truncate(1), e.g. a file vdev */
  sizeBytes?: number;
}

type WithFiles = SimHost & { files?: Record<string, SimFile>; dirs?: string[]; links?: Record<string, string> };

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
function links(state: SimHost): Record<string, string> {
  const s = state as WithFiles;
  return (s.links ??= {});
}

const MAXSYMLINKS = 32;
export class SymlinkLoopError extends Error {}

/**
 * The path a lookup reaches: `path` (absolute, or relative to `root`) walked component by component from
 * `root` (default `/`), each symbolic link replaced by its target; `..` never climbs above `root` (a jail's
 * chroot). `followLast: false` keeps a final link itself (lstat). The result is a host path.
 */
export function resolvePath(state: SimHost, path: string, opts: { root?: string; followLast?: boolean } = {}): string {
  const root = normalizePath(opts.root ?? '/');
  const hostPath = (segs: string[]) => normalizePath(`${root}/${segs.join('/')}`);
  let pending = path.split('/');
  let cur: string[] = [];
  let hops = 0;
  while (pending.length) {
    const seg = pending.shift()!;
    if (!seg || seg === '.') continue;
    if (seg === '..') {
      cur.pop();
      continue;
    }
    cur.push(seg);
    const target = links(state)[hostPath(cur)];
    if (target === undefined || (!pending.some((x) => x && x !== '.') && opts.followLast === false)) continue;
    if (++hops > MAXSYMLINKS) throw new SymlinkLoopError(`${path}: Too many levels of symbolic links`);
    cur.pop();
    if (target.startsWith('/')) cur = [];
    pending = [...target.split('/'), ...pending];
  }
  return hostPath(cur);
}

/** resolvePath for the helpers below: a loop reads as a path that does not exist. */
function real(state: SimHost, path: string, followLast = true): string {
  try {
    return resolvePath(state, path, { followLast });
  } catch (e) {
    if (e instanceof SymlinkLoopError) return '/\0eloop';
    throw e;
  }
}

/** The target of a symbolic link (readlink), or null when the path is not one. */
export function readLink(state: SimHost, path: string): string | null {
  return links(state)[real(state, path, false)] ?? null;
}

export function isLink(state: SimHost, path: string): boolean {
  return readLink(state, path) !== null;
}

/** ln -s target path: false when something exists at path (EEXIST) or its directory does not (ENOENT). */
export function symlink(state: SimHost, target: string, path: string): 'ok' | 'exists' | 'missing' {
  const p = real(state, path, false);
  if (Object.hasOwn(links(state), p) || Object.hasOwn(files(state), p) || isDir(state, p)) return 'exists';
  if (!isDir(state, parentOf(p)!)) return 'missing';
  links(state)[p] = target;
  return 'ok';
}

export function readFile(state: SimHost, path: string): string | null {
  return files(state)[real(state, path)]?.content ?? null;
}

/** A regular file's length (a sparse file's `sizeBytes`, else its content's), or null when there is none. */
export function fileSize(state: SimHost, path: string): number | null {
  const f = files(state)[real(state, path)];
  return f ? (f.sizeBytes ?? Buffer.byteLength(f.content)) : null;
}

/** Sets a regular file's length as truncate(2) does: created empty when missing (its directory must exist), zero-filled when grown. */
export function truncateFile(state: SimHost, path: string, size: number): boolean {
  const p = real(state, path);
  const f = files(state)[p];
  if (!f) {
    if (!isDir(state, parentOf(p)!)) return false;
    files(state)[p] = { content: '', mode: '644', sizeBytes: size };
    return true;
  }
  const content = Buffer.from(f.content).subarray(0, size).toString();
  files(state)[p] = { content, mode: f.mode, ...(size > Buffer.byteLength(content) ? { sizeBytes: size } : {}) };
  return true;
}

export function isFile(state: SimHost, path: string): boolean {
  return Object.hasOwn(files(state), real(state, path));
}

/** The mode of a file (following links), or null. */
export function fileMode(state: SimHost, path: string): string | null {
  return files(state)[real(state, path)]?.mode ?? null;
}

export function isDir(state: SimHost, path: string): boolean {
  const p = real(state, path);
  if (p === '/') return true;
  if (dirs(state).includes(p)) return true;
  const prefix = `${p}/`;
  return Object.keys(files(state)).some((f) => f.startsWith(prefix)) || dirs(state).some((d) => d.startsWith(prefix));
}

/** Creates the directory and its parents (mkdir -p). */
export function makeDirs(state: SimHost, path: string): void {
  for (let p: string | null = real(state, path); p && p !== '/'; p = parentOf(p)) if (!dirs(state).includes(p)) dirs(state).push(p);
}

/** Writes a file; its directory must exist unless `createParents`. Returns false when it does not. */
export function writeFile(state: SimHost, path: string, content: string, mode?: string, createParents = false): boolean {
  const p = real(state, path);
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
  const f = files(state)[real(state, path)];
  if (!f) return false;
  f.mode = mode;
  return true;
}

/** rm of a file or a symbolic link (the link itself, not its target). */
export function removeFile(state: SimHost, path: string): boolean {
  const p = real(state, path, false);
  if (Object.hasOwn(links(state), p)) return delete links(state)[p];
  return delete files(state)[p];
}

/** Removes a directory tree (rm -rf); true when anything was there. */
export function removeTree(state: SimHost, path: string): boolean {
  const p = real(state, path, false);
  const prefix = p === '/' ? '/' : `${p}/`;
  let any = removeFile(state, p);
  for (const f of Object.keys(files(state))) if (f.startsWith(prefix)) any = delete files(state)[f] || any;
  for (const l of Object.keys(links(state))) if (l.startsWith(prefix)) any = delete links(state)[l] || any;
  const s = state as WithFiles;
  const before = dirs(state).length;
  s.dirs = dirs(state).filter((d) => d !== p && !d.startsWith(prefix));
  return any || s.dirs.length !== before;
}

/** Removes an empty directory (rmdir); 'missing', 'not-empty', 'not-dir' or 'ok'. */
export function removeEmptyDir(state: SimHost, path: string): 'ok' | 'missing' | 'not-empty' | 'not-dir' {
  const p = real(state, path, false);
  if (isFile(state, p) || isLink(state, p)) return 'not-dir';
  if (!isDir(state, p)) return 'missing';
  if (listDir(state, p).length) return 'not-empty';
  const s = state as WithFiles;
  s.dirs = dirs(state).filter((d) => d !== p);
  return 'ok';
}

/** Names directly inside a directory, sorted (ls -1). */
export function listDir(state: SimHost, path: string): string[] {
  const p = real(state, path);
  const prefix = p === '/' ? '/' : `${p}/`;
  const names = new Set<string>();
  for (const f of [...Object.keys(files(state)), ...dirs(state), ...Object.keys(links(state))]) {
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
