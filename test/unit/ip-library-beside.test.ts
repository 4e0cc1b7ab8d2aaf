/**
 * A function bundle loads ipaddr.js from a file the build writes beside it (scripts/build/ip-library-beside.ts),
 * where the source imports the package on first use. Bundled here as the build does and run by node: the
 * failed-auth key through the bundle must be what it is in-process, and the bundle itself holds no ipaddr.js.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { ipLibraryBeside, ipLibraryEntries } from '#scripts/build/ip-library-beside';
import { countedSource } from '#shared/auth/failed-auth';

const SOURCES = ['203.0.113.9', '::ffff:203.0.113.9', '2001:db8:1:2:3:4:5:6', '2001:db8::1', 'fe80::1', 'unknown', '999.1.1.1', '::'];

test('the failed-auth key through a bundle, with ipaddr.js beside it, is the one computed in-process', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hm-ip-beside-'));
  try {
    const common: esbuild.BuildOptions = { bundle: true, platform: 'node', format: 'esm', target: 'node24', logLevel: 'error', write: true };
    const fn = await esbuild.build({
      ...common,
      metafile: true,
      external: ['pg-native', 'cloudflare:sockets'],
      plugins: [ipLibraryBeside],
      stdin: { contents: "export { countedSource } from '#shared/auth/failed-auth';", resolveDir: process.cwd(), loader: 'ts', sourcefile: 'fn.ts' },
      outfile: join(dir, 'fn.js'),
    });
    expect(Object.keys(fn.metafile!.inputs).filter((i) => i.includes('ipaddr.js/'))).toEqual([]);
    const entries = ipLibraryEntries(fn.metafile!);
    expect(Object.keys(entries)).toEqual([expect.stringMatching(/fn\.ipaddr$/)]);
    await esbuild.build({ ...common, entryPoints: { 'fn.ipaddr': Object.values(entries)[0] }, outdir: dir });
    expect(readFileSync(join(dir, 'fn.js'), 'utf8')).toContain('.ipaddr.js');
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    writeFileSync(
      join(dir, 'run.mjs'),
      `import { countedSource } from './fn.js';\nconst out = [];\nfor (const s of ${JSON.stringify(SOURCES)}) out.push(await countedSource(s));\nprocess.stdout.write(JSON.stringify(out));\n`,
    );
    const run = spawnSync(process.execPath, [join(dir, 'run.mjs')], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual(await Promise.all(SOURCES.map(countedSource)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
