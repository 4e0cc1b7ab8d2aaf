import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The places the agent and the host-check kit build a `zfs`/`zpool` command: every array literal whose first
 * element is the string 'zfs' or 'zpool', found by reading the source (not by running it, so a call site no test
 * reaches is still found). A site is its file and its literal with whitespace collapsed: moving a line keeps it,
 * changing the command makes it a new site that the inventory must place.
 */
export const SCANNED_DIRS = ['agent'];

export interface CallSite {
  file: string;
  literal: string;
}

const ROOT = join(__dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The array literal opening at `open` (a '['), brackets balanced, strings and template literals skipped. */
function literalAt(text: string, open: number): string {
  let depth = 0;
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '[' || c === '(' || c === '{') depth++;
    else if (c === ']' || c === ')' || c === '}') {
      depth--;
      if (depth === 0) return text.slice(open, i + 1);
    }
  }
  throw new Error(`unbalanced array literal at ${open}`);
}

export function scanCallSites(root = ROOT): CallSite[] {
  const sites: CallSite[] = [];
  for (const dir of SCANNED_DIRS) {
    for (const path of sourceFiles(join(root, dir))) {
      const text = readFileSync(path, 'utf8');
      for (const m of text.matchAll(/\[\s*['"](zfs|zpool)['"]\s*,/g)) {
        sites.push({ file: relative(root, path), literal: literalAt(text, m.index).replace(/\s+/g, ' ').replace(/\[ /g, '[').replace(/,? \]/g, ']') });
      }
    }
  }
  return sites;
}
