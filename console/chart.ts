import uPlot from 'uplot';

/** Byte rates and sizes in binary units; the default formatter prints big rates as "0,000". */
export function bytes(v: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let n = Math.abs(v);
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${(Math.sign(v) * n).toFixed(n < 10 && i > 0 ? 1 : 0)} ${units[i]}`;
}
export const plain = (v: number) => (Math.abs(v) >= 1000 ? `${(v / 1000).toFixed(1)}k` : v.toFixed(v % 1 ? 2 : 0));
export const percent = (v: number) => `${(v * 100).toFixed(0)} %`;
export const millis = (nanos: number) => `${(nanos / 1e6).toFixed(1)} ms`;

export interface SeriesSpec {
  label: string;
  color: string;
}

/** The colours of the page's theme (CSS variables), so axes stay readable in dark mode. */
const css = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/**
 * One time-series chart: x in seconds, one y series per spec. `set` replaces its data (uPlot redraws once);
 * the caller keeps the arrays, appending a sample and trimming the window before calling it.
 */
export class TimeChart {
  readonly plot: uPlot;
  redraws = 0;
  constructor(el: HTMLElement, title: string, series: SeriesSpec[], format: (v: number) => string, width = 560) {
    const ink = css('--ink', '#222');
    const grid = css('--grid', '#8884');
    this.plot = new uPlot(
      {
        title,
        width,
        height: 200,
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: s.color, width: 1.5, value: (_u: uPlot, v: number | null) => (v == null ? '—' : format(v)) })),
        ],
        axes: [
          { stroke: ink, grid: { stroke: grid } },
          { stroke: ink, grid: { stroke: grid }, size: 70, values: (_u: uPlot, vals: number[]) => vals.map(format) },
        ],
        hooks: { draw: [() => void this.redraws++] },
      },
      [[], ...series.map(() => [])],
      el,
    );
  }
  set(data: number[][]): void {
    this.plot.setData(data as uPlot.AlignedData);
  }
  destroy(): void {
    this.plot.destroy();
  }
}
