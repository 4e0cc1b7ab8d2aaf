import uPlot from 'uplot';
import { tickLabels, timeAxisTitle, zoneName, type Unit } from './axis.ts';

export { byteUnit, countUnit, nanosAsMillis, ratioAsPercent, tickLabels, type Unit } from './axis.ts';

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

/** px the x axis's title takes below its tick labels */
const X_TITLE = 20;

/** The colours of the page's theme (CSS variables), so axes stay readable in dark mode. */
const css = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/**
 * One time-series chart: x in seconds, one y series per spec. `set` replaces its data (uPlot redraws once);
 * the caller keeps the arrays, appending a sample and trimming the window before calling it.
 */
export class TimeChart {
  readonly plot: uPlot;
  redraws = 0;
  /** the y axis's labels as last drawn (also on the element as `data-y-ticks`, for tests and tools) */
  yTicks: string[] = [];
  constructor(el: HTMLElement, title: string, series: SeriesSpec[], format: (v: number) => string, width = 560, unit?: Unit) {
    const ink = css('--ink', '#222');
    const grid = css('--grid', '#8884');
    const yValues = (_u: uPlot, splits: number[], _axis: number, _space: number, incr: number) => {
      this.yTicks = unit ? tickLabels(splits, incr, unit) : splits.map(format);
      el.dataset.yTicks = this.yTicks.join('|');
      return this.yTicks;
    };
    // the x labels ("14:05") are in the browser's zone: said once, in the axis title (also `data-x-label`)
    const xLabel = timeAxisTitle(zoneName(new Date()));
    el.dataset.xLabel = xLabel;
    // wide enough for the longest label (about 7 px a character at the axis font), so none is cut
    const ySize = (_u: uPlot, values: string[] | null) => 18 + 7 * Math.max(4, ...(values ?? []).map((v) => v.length));
    this.plot = new uPlot(
      {
        title,
        width,
        // the x axis's title takes X_TITLE px: the plot keeps the height it had without one (as many y ticks)
        height: 200 + X_TITLE,
        series: [
          {},
          ...series.map((s) => ({ label: s.label, stroke: s.color, width: 1.5, value: (_u: uPlot, v: number | null) => (v == null ? '—' : format(v)) })),
        ],
        axes: [
          // time labels ("11/28 14:00") need more room than uPlot's 50 px to stay apart on a narrow chart
          { stroke: ink, grid: { stroke: grid }, space: 90, label: xLabel, labelSize: X_TITLE },
          { stroke: ink, grid: { stroke: grid }, space: 36, size: ySize, values: yValues },
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
