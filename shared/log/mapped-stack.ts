import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A stack trace with each frame in a bundle that has a source map beside it (`<bundle>.js.map`, which the build
 * writes and the function's package holds) pointing at the TypeScript source instead: `at f (…/shared/x.ts:12:5)`.
 *
 * Why here and not Node's `--enable-source-maps`: that flag parses a bundle's map whenever the bundle loads, on every
 * cold start (≈ 6–8 ms of a ≈ 70 ms start here), to serve a stack that is only written on an unexpected error. Node
 * only maps modules loaded after it was enabled, so it cannot be turned on when the error comes; this reads the map
 * then, with Node's own SourceMap (node:module), once per bundle and process.
 */
const maps = new Map<string, SourceMap | null>();

function mapOf(bundle: string): SourceMap | null {
  let map = maps.get(bundle);
  if (map === undefined) {
    const file = `${bundle}.map`;
    try {
      map = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null;
    } catch {
      map = null; // an unreadable map leaves the frames as they are
    }
    maps.set(bundle, map);
  }
  return map;
}

/** `file:///…/x.js:L:C` or `/…/x.js:L:C` inside a frame. */
const FRAME_LOCATION = /(file:\/\/[^\s()]+?\.m?js|\/[^\s():]+?\.m?js):(\d+):(\d+)/g;

export function mappedStack(stack: string | undefined): string | undefined {
  if (!stack) return stack;
  return stack.replace(FRAME_LOCATION, (whole, where: string, line: string, column: string) => {
    const bundle = where.startsWith('file:') ? fileURLToPath(where) : where;
    const origin = mapOf(bundle)?.findOrigin(Number(line), Number(column));
    if (!origin || !('fileName' in origin)) return whole;
    const source = origin.fileName.startsWith('file:') ? fileURLToPath(origin.fileName) : resolve(dirname(bundle), origin.fileName);
    return `${source}:${origin.lineNumber}:${origin.columnNumber}`;
  });
}
