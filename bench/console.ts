/**
 * The web console's budgets: first load ≤ 100 KB gzip of JavaScript (dist/console/*.js as built), and one
 * telemetry chart update ≤ 10 ms with a day of 10 s samples (8 640 points) in view — console/chart.ts's TimeChart
 * (uPlot) in the system's Chromium: slide the window by one sample (append one, drop the oldest), `set` the data
 * and let uPlot commit (two microtask turns, as it commits on a microtask), median of BENCH_CONSOLE_N updates.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { binaryOf, PEERS } from '#scripts/provision/peers';
import { fmtKB, fmtMs, median } from './lib/stats.ts';
import { runAlone, type Bench, type Row } from './lib/report.ts';

const POINTS = 8_640;
const JS_BUDGET = 100 * 1024;
const UPDATE_BUDGET_MS = 10;

export const consoleBench: Bench = {
  name: 'console',
  async run() {
    const rows: Row[] = [];
    if (!existsSync('dist/console/main.js'))
      return [{ section: 'web console', what: 'dist/console', value: 'none built', ok: false, note: 'run npm run build' }];
    const gzip = readdirSync('dist/console')
      .filter((f) => f.endsWith('.js'))
      .reduce((n, f) => n + gzipSync(readFileSync(join('dist/console', f)), { level: 9 }).length, 0);
    rows.push({ section: 'web console', what: 'first load JavaScript (gzip)', value: fmtKB(gzip), target: '≤ 100 KB', ok: gzip <= JS_BUDGET });

    const n = Number(process.env.BENCH_CONSOLE_N ?? 50);
    const chartJs = await esbuild.build({
      entryPoints: ['console/chart.ts'],
      bundle: true,
      minify: true,
      format: 'iife',
      globalName: 'Charts',
      write: false,
      logLevel: 'warning',
    });
    const browser = await chromium.launch({
      executablePath: binaryOf(PEERS.find((p) => p.env === 'CHROMIUM')!, process.env),
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.setContent(`<!doctype html><html><body><div id="c"></div><script>${chartJs.outputFiles[0].text}</script></body></html>`);
      const times = await page.evaluate(
        async ({ points, n }) => {
          const g = globalThis as any;
          const { TimeChart, bytes } = g.Charts;
          const t0 = Date.now() / 1000 - points * 10;
          const time = Array.from({ length: points }, (_, i) => t0 + i * 10);
          const read = time.map((_, i) => 4e6 + Math.sin(i / 50) * 1e6);
          const write = time.map((_, i) => 2e6 + Math.cos(i / 70) * 5e5);
          const chart = new TimeChart(
            g.document.getElementById('c'),
            'bench',
            [
              { label: 'read', color: '#2b7bb9' },
              { label: 'write', color: '#c4572a' },
            ],
            bytes,
          );
          chart.set([time, read, write]);
          await Promise.resolve();
          const out: number[] = [];
          for (let k = 0; k < n; k++) {
            time.push(time[time.length - 1] + 10);
            read.push(4e6 + Math.random() * 1e6);
            write.push(2e6 + Math.random() * 5e5);
            time.shift();
            read.shift();
            write.shift();
            const s = performance.now();
            chart.set([time, read, write]);
            await Promise.resolve();
            await Promise.resolve();
            out.push(performance.now() - s);
            await new Promise((r) => setTimeout(r, 0));
          }
          return { out, redraws: chart.redraws };
        },
        { points: POINTS, n },
      );
      const m = median(times.out);
      rows.push({
        section: 'web console',
        what: `chart update at ${POINTS} points (median of ${n})`,
        value: fmtMs(m),
        target: `≤ ${UPDATE_BUDGET_MS} ms`,
        ok: m <= UPDATE_BUDGET_MS,
        note: `${times.redraws} redraws for ${n + 1} updates`,
      });
    } finally {
      await browser.close();
    }
    return rows;
  },
};

await runAlone(import.meta, consoleBench);
