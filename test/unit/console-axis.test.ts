// @tier fast
import { byteUnit, countUnit, nanosAsMillis, ratioAsPercent, tickLabels, timeAxisTitle, zoneName } from '../../console/axis.ts';

/**
 * The console's chart axes: one unit per axis and as many decimals as the step between ticks needs, so
 * neighbouring ticks never print the same label ("12 GiB, 12 GiB, 11 GiB" was a flat ARC of about 12 GiB).
 */
const GiB = 1024 ** 3;
const ticks = (from: number, step: number, n = 5) => Array.from({ length: n }, (_, i) => from + i * step);
const distinct = (labels: string[]) => new Set(labels).size === labels.length;

describe('tick labels', () => {
  test('an ARC of about 12 GiB varying by tenths reads with one decimal, every label different', () => {
    const splits = ticks(11.8 * GiB, 0.1 * GiB);
    const labels = tickLabels(splits, 0.1 * GiB, byteUnit());
    expect(labels).toEqual(['11.8 GiB', '11.9 GiB', '12.0 GiB', '12.1 GiB', '12.2 GiB']);
  });

  test('steps of 2e8 bytes (uPlot’s decimal steps on a binary axis) still read apart', () => {
    const labels = tickLabels(ticks(12e9, 2e8), 2e8, byteUnit('/s'));
    expect(distinct(labels)).toBe(true);
    expect(labels.every((l) => l.endsWith(' GiB/s'))).toBe(true);
  });

  test('whole steps print no decimals; the unit follows the largest tick', () => {
    expect(tickLabels(ticks(0, 256 * 1024, 4), 256 * 1024, byteUnit())).toEqual(['0 KiB', '256 KiB', '512 KiB', '768 KiB']);
    expect(tickLabels([0, 500, 1000, 1500], 500, countUnit)).toEqual(['0.0k', '0.5k', '1.0k', '1.5k']);
    expect(tickLabels([0, 20, 40], 20, countUnit)).toEqual(['0', '20', '40']);
  });

  test('a hit ratio near 90 % and sub-millisecond latencies keep their neighbours apart', () => {
    const hit = tickLabels(ticks(0.898, 0.001), 0.001, ratioAsPercent);
    expect(hit).toEqual(['89.8 %', '89.9 %', '90.0 %', '90.1 %', '90.2 %']);
    const latency = tickLabels(ticks(1_250_000, 5_000), 5_000, nanosAsMillis);
    expect(latency).toEqual(['1.250 ms', '1.255 ms', '1.260 ms', '1.265 ms', '1.270 ms']);
    expect(tickLabels(ticks(250_000, 5_000), 5_000, nanosAsMillis)).toEqual(['250 µs', '255 µs', '260 µs', '265 µs', '270 µs']);
  });

  test.each([1e-3, 0.05, 0.2, 1, 7, 2e8, 3 * GiB])('step %p: no two neighbours print the same', (step) => {
    for (const unit of [byteUnit(), countUnit, nanosAsMillis, ratioAsPercent]) {
      const splits = ticks(1000 * step, step, 8);
      expect(distinct(tickLabels(splits, step, unit))).toBe(true);
    }
  });
});

describe('time axis title', () => {
  const winter = new Date(Date.UTC(2026, 0, 15, 14, 5));
  const summer = new Date(Date.UTC(2026, 6, 15, 14, 5));

  test('names the zone the labels are drawn in, as the console prints it after other times', () => {
    expect(timeAxisTitle(zoneName(winter, 'UTC', 'en-US'))).toBe('Time (UTC)');
    expect(zoneName(winter, 'America/New_York', 'en-US')).toBe('EST');
    // a zone that changes with daylight saving is named for the instant the axis shows
    expect(zoneName(summer, 'America/New_York', 'en-US')).toBe('EDT');
    expect(zoneName(winter, 'Europe/Berlin', 'en-GB')).toBe('CET');
    expect(zoneName(summer, 'Europe/Berlin', 'en-GB')).toBe('CEST');
  });

  test('is the zone the Time element prints (toLocaleString with timeZoneName short)', () => {
    for (const timeZone of ['UTC', 'Asia/Kolkata', 'Europe/Berlin', 'America/Los_Angeles']) {
      const printed = winter.toLocaleString('en-US', { timeZone, timeZoneName: 'short' });
      expect(printed.endsWith(` ${zoneName(winter, timeZone, 'en-US')}`)).toBe(true);
    }
  });
});
