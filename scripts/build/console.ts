import { readdirSync, readFileSync, writeFileSync, mkdirSync, copyFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

/** Where the console's static files go: uploaded to S3 when deployed, served by functions/meta/console locally. */
export const CONSOLE_DIST = 'dist/console';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Builds the web console (console/, Preact + signals + uPlot) for browsers into dist/console/ — index.html,
 * main.js, main.css — and packs the same files, by name, into dist/functions/meta/console.json for the
 * function that serves them on the API's origin (GET /, GET /console/{file}). Returns main.js's gzip size.
 */
export async function buildConsole(): Promise<{ jsBytes: number; jsGzipBytes: number }> {
  mkdirSync(CONSOLE_DIST, { recursive: true });
  await esbuild.build({
    entryPoints: { main: 'console/main.tsx' },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome120', 'firefox120', 'safari17'],
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: CONSOLE_DIST,
    legalComments: 'none',
    logLevel: 'warning',
  });
  copyFileSync('console/index.html', join(CONSOLE_DIST, 'index.html'));
  const files: Record<string, { type: string; body: string }> = {};
  for (const name of readdirSync(CONSOLE_DIST)) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (type) files[name] = { type, body: readFileSync(join(CONSOLE_DIST, name), 'utf8') };
  }
  mkdirSync('dist/functions/meta', { recursive: true });
  writeFileSync('dist/functions/meta/console.json', JSON.stringify(files));
  const js = readFileSync(join(CONSOLE_DIST, 'main.js'));
  return { jsBytes: js.length, jsGzipBytes: gzipSync(js, { level: 9 }).length };
}
