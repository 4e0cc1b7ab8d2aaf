/**
 * Bundle sizes: each HTTP function's dist/functions/<area>/<op>.js as deployed (esbuild, minified) against the
 * 250 KB budget (a request's cold start loads it). Scheduled functions (sweeper, renewals, notification
 * delivery) run off the request path and are listed for context, like the agent bundle (not a Lambda): the
 * delivery worker carries nodemailer (≈ 200 KB minified), which no request needs.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { builtFunctions } from './lib/routes.ts';
import { fmtKB } from './lib/stats.ts';
import { runAlone, type Bench, type Row } from './lib/report.ts';

const BUDGET = 250 * 1024;

/** Sizes of the modules the build writes beside a bundle for it to import on demand (`<op>.result.<kind>.js`). */
function filesBeside(module: string): number[] {
  const dir = dirname(`dist/${module}`);
  const prefix = `${basename(module)}.`;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.startsWith(prefix) && n.endsWith('.js') && n !== `${basename(module)}.js`)
    .map((n) => statSync(join(dir, n)).size);
}

export const bundles: Bench = {
  name: 'bundles',
  async run() {
    const fns = builtFunctions().sort((a, b) => b.bytes - a.bytes);
    if (fns.length === 0) return [{ section: 'bundle size', what: 'dist/functions', value: 'none built', ok: false, note: 'run npm run build' }];
    const rows: Row[] = fns.map((f) => {
      const beside = filesBeside(f.module);
      return {
        section: 'bundle size',
        what: f.module.replace(/^functions\//, ''),
        value: fmtKB(f.bytes),
        target: '≤ 250 KB',
        ok: f.bytes <= BUDGET,
        // what the function loads from its package after import, one file at a time (not part of the budget)
        note: beside.length
          ? `+ ${beside.length} files beside it, loaded one per use (${fmtKB(Math.min(...beside))}–${fmtKB(Math.max(...beside))}, ${fmtKB(beside.reduce((a, b) => a + b, 0))} together)`
          : undefined,
      };
    });
    const over = fns.filter((f) => f.bytes > BUDGET).length;
    rows.push({
      section: 'bundle size',
      what: `all ${fns.length} functions`,
      value: `${over} over`,
      target: '0 over',
      ok: over === 0,
      note: `largest ${fns[0].module} ${fmtKB(fns[0].bytes)}, smallest ${fns.at(-1)!.module} ${fmtKB(fns.at(-1)!.bytes)}`,
    });
    const http = new Set(fns.map((f) => f.module));
    for (const area of readdirSync('functions', { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const f of readdirSync(`functions/${area.name}`).filter((n) => n.endsWith('.trigger.ts'))) {
        const module = `functions/${area.name}/${f.replace(/\.trigger\.ts$/, '')}`;
        if (!http.has(module) && existsSync(`dist/${module}.js`))
          rows.push({
            section: 'bundle size',
            what: `${module.replace(/^functions\//, '')} (scheduled)`,
            value: fmtKB(statSync(`dist/${module}.js`).size),
            ok: null,
          });
      }
    }
    if (existsSync('dist/agent/agent.js'))
      rows.push({ section: 'bundle size', what: 'agent (not a Lambda)', value: fmtKB(statSync('dist/agent/agent.js').size), ok: null });
    if (existsSync('dist/simulator/agent.js'))
      rows.push({
        section: 'bundle size',
        what: 'agent + simulator (npm start, tests; not shipped)',
        value: fmtKB(statSync('dist/simulator/agent.js').size),
        ok: null,
      });
    return rows;
  },
};

await runAlone(import.meta, bundles);
