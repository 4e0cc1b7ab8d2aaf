/**
 * The suite's three tiers, decided for every test file from where it lives and its docblock, so a file added
 * later needs no list to be edited:
 *   fast  (a) no stack, no store: test/unit/**, unless its docblock says `@tier stack` or `@tier e2e`
 *   stack (b) the store and the stack (one per jest worker): every other file — the safe default
 *   e2e   (c) agents over SSH, Chromium, a whole `npm start`: `@tier e2e`
 *   real-zfs (c) the real-OpenZFS peer (a QEMU guest, no stack): test/real-zfs/**
 * A file may also say `@tier fast` outside test/unit. `@profile-sensitive` marks a fast or e2e file whose
 * behaviour differs by simulated host profile: it runs again on FreeBSD 15.0 (tier (b) always runs on both
 * stores, its PostgreSQL pass on FreeBSD 15.0). A tag that names no tier, or two tags, leave the file in no tier:
 * test/unit/tiers.test.ts fails on it.
 */
const { readFileSync, readdirSync } = require('node:fs');
const { join, relative, sep } = require('node:path');

const TIERS = ['fast', 'stack', 'e2e', 'real-zfs'];

/** Every test file under test/, relative to the repository root with '/' separators, sorted. */
function testFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.test.ts')) out.push(relative(root, p).split(sep).join('/'));
    }
  };
  walk(join(root, 'test'));
  return out.sort();
}

/** The `@tier` tags a file's comments name (normally none or one). */
function tierTags(source) {
  return [...source.matchAll(/^\s*(?:\/\/|\/\*\*|\*)\s*@tier\s+(\S+)/gm)].map((m) => m[1]);
}

/** The tiers a file is in: exactly one for a well-formed file; none or two for a broken tag. */
function tiersOf(file, source) {
  const tags = tierTags(source);
  if (tags.length > 1 || tags.some((t) => !TIERS.includes(t))) return tags.filter((t) => TIERS.includes(t)).length > 1 ? tags : [];
  if (tags.length === 1) return tags;
  if (file.startsWith('test/real-zfs/')) return ['real-zfs'];
  if (file.startsWith('test/unit/')) return ['fast'];
  return ['stack'];
}

/**
 * Whether a file's behaviour may differ by simulated host profile: it says `@profile-sensitive`, or it builds
 * simulated hosts itself (the simulator's modules or test/helpers/simulated-host.ts), which take HM_SIM_PROFILE
 * when their seed names no profile.
 */
const profileSensitive = (source) =>
  /^\s*(?:\/\/|\/\*\*|\*)\s*@profile-sensitive\b/m.test(source) || /from '(?:#simulator\/|[./]*(?:simulator\/|helpers\/simulated-host))/.test(source);

/** { fast: [...], stack: [...], e2e: [...], 'real-zfs': [...], profileSensitive: [...], unplaced: [...] } for the repository at root. */
function plan(root) {
  const p = { fast: [], stack: [], e2e: [], 'real-zfs': [], profileSensitive: [], unplaced: [] };
  for (const file of testFiles(root)) {
    const source = readFileSync(join(root, file), 'utf8');
    const tiers = tiersOf(file, source);
    if (tiers.length !== 1) p.unplaced.push(file);
    else p[tiers[0]].push(file);
    if (profileSensitive(source)) p.profileSensitive.push(file);
  }
  return p;
}

module.exports = { TIERS, testFiles, tierTags, tiersOf, profileSensitive, plan };
