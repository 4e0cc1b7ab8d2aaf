import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, qs } from './api.ts';
import { byteUnit, bytes, countUnit, millis, nanosAsMillis, percent, plain, ratioAsPercent, TimeChart, type SeriesSpec, type Unit } from './chart.ts';
import { ErrorLine, useLoad } from './load.tsx';
import { poll } from './state.ts';
import type { ApiData, PoolPoint, Telemetry as History, TelemetryDelta } from './api-types.ts';

/** What the charts hold: the window's history, grown by the deltas after its cursors. */
type Telemetry = Pick<History, 'pools' | 'arc' | 'cursors'>;
import 'uplot/dist/uPlot.min.css';

const RANGES = { '1 hour': 3_600_000, '6 hours': 21_600_000, '24 hours': 86_400_000 } as const;
type Range = keyof typeof RANGES;
const POINTS = 360;

/** The columns of one chart, growing by the E14 samples that follow the history. */
interface Columns {
  time: number[];
  values: number[][];
}
interface ChartDef {
  key: string;
  title: string;
  series: SeriesSpec[];
  format: (v: number) => string;
  /** the y axis's unit (its labels take the decimals their step needs) */
  unit: Unit;
  /** the values of one time step, one per series */
  pick: (pool: PoolPoint | undefined, arc: Telemetry['arc'][number] | undefined) => number[];
}

const READ = '#2b7bb9';
const WRITE = '#c4572a';
const CHARTS: ChartDef[] = [
  {
    key: 'bandwidth',
    title: 'Pool bandwidth',
    series: [
      { label: 'read', color: READ },
      { label: 'write', color: WRITE },
    ],
    format: (v) => `${bytes(v)}/s`,
    unit: byteUnit('/s'),
    pick: (p) => [p?.readBytesPerSecond ?? 0, p?.writeBytesPerSecond ?? 0],
  },
  {
    key: 'iops',
    title: 'Pool IOPS',
    series: [
      { label: 'read', color: READ },
      { label: 'write', color: WRITE },
    ],
    format: plain,
    unit: countUnit,
    pick: (p) => [p?.readIOPS ?? 0, p?.writeIOPS ?? 0],
  },
  {
    key: 'latency',
    title: 'Pool latency',
    series: [
      { label: 'read', color: READ },
      { label: 'write', color: WRITE },
    ],
    format: millis,
    unit: nanosAsMillis,
    pick: (p) => [p?.readLatencyNanos ?? 0, p?.writeLatencyNanos ?? 0],
  },
  { key: 'arc-size', title: 'ARC size', series: [{ label: 'size', color: READ }], format: bytes, unit: byteUnit(), pick: (_p, a) => [a?.size ?? 0] },
  {
    key: 'arc-hit',
    title: 'ARC hit ratio',
    series: [{ label: 'hit ratio', color: WRITE }],
    format: percent,
    unit: ratioAsPercent,
    pick: (_p, a) => [a?.hitRatio ?? 0],
  },
];

/** Pool charts follow one pool's points; ARC charts the node's rows. */
function columnsOf(def: ChartDef, t: Telemetry, guid: string | undefined): Columns {
  const pool = t.pools.find((p) => p.guid === guid);
  const rows: Array<[number, number[]]> = def.key.startsWith('arc')
    ? t.arc.map((a) => [a.time / 1000, def.pick(undefined, a)])
    : (pool?.points ?? []).map((p) => [p.time / 1000, def.pick(p, undefined)]);
  return { time: rows.map((r) => r[0]), values: def.series.map((_s, i) => rows.map((r) => r[1][i])) };
}

function Chart({ def, columns }: { def: ChartDef; columns: Columns }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<TimeChart | null>(null);
  useEffect(() => {
    chart.current = new TimeChart(el.current!, def.title, def.series, def.format, Math.min(560, (el.current!.clientWidth || 600) - 16), def.unit);
    return () => chart.current?.destroy();
  }, [def]);
  useEffect(() => {
    chart.current?.set([columns.time, ...columns.values]);
  }, [columns]);
  return <div ref={el} class="chart" data-chart={def.key} data-points={columns.time.length} />;
}

export function Storage() {
  const nodes = useLoad(() => api<ApiData['GET /api/cluster/nodes']>('GET', '/cluster/nodes?status=member&size=100'));
  const [nodeId, setNodeId] = useState<string>('');
  const [range, setRange] = useState<Range>('1 hour');
  const [poolGuid, setPoolGuid] = useState<string | undefined>(undefined);
  const [data, setData] = useState<Telemetry | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  // the chosen node, else the first online member (an offline one has only stale telemetry)
  const node = nodes.data?.data.find((n) => n.id === nodeId) ?? nodes.data?.data.find((n) => n.online) ?? nodes.data?.data[0];

  useEffect(() => {
    if (!node) return;
    let held: Telemetry | undefined;
    let cancelled = false;
    const windowMs = RANGES[range];
    // the window's history, bucketed by the API; then E14's samples after its cursors, every 10 s
    const tick = async () => {
      try {
        if (!held) {
          const to = Date.now();
          held = await api<History>('GET', `/zfs/dashboard/history${qs({ nodeId: node.id, from: to - windowMs, to: to + 60_000, points: POINTS })}`);
        } else {
          const d = await api<TelemetryDelta>(
            'GET',
            `/zfs/dashboard/history/delta${qs({ nodeId: node.id, poolAfter: held.cursors.pool, arcAfter: held.cursors.arc })}`,
          );
          const since = Date.now() - windowMs;
          const pools = d.resetRequired
            ? d.pools
            : held.pools.map((p) => ({
                ...p,
                points: [...p.points, ...(d.pools.find((q) => q.guid === p.guid)?.points ?? [])].filter((x) => x.time >= since),
              }));
          for (const p of d.pools) if (!pools.some((q) => q.guid === p.guid)) pools.push(p);
          held = { pools, arc: d.resetRequired ? d.arc : [...held.arc, ...d.arc].filter((a) => a.time >= since), cursors: d.cursors };
        }
        if (!cancelled) {
          setData(held);
          setError(undefined);
        }
      } catch (err) {
        if (!cancelled) setError(err instanceof ApiError ? err.message : String(err));
      }
    };
    const stop = poll(tick, 10_000);
    return () => {
      cancelled = true;
      stop();
    };
  }, [node?.id, range]);

  const guid = poolGuid ?? data?.pools[0]?.guid;
  return (
    <div>
      <h1>Storage telemetry</h1>
      <ErrorLine error={nodes.error ?? error} />
      <div class="toolbar">
        <label>
          Node{' '}
          <select value={node?.id ?? ''} onChange={(e) => setNodeId(e.currentTarget.value)}>
            {(nodes.data?.data ?? []).map((n) => (
              <option key={n.id} value={n.id}>
                {n.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Pool{' '}
          <select value={guid ?? ''} onChange={(e) => setPoolGuid(e.currentTarget.value)}>
            {(data?.pools ?? []).map((p) => (
              <option key={p.guid} value={p.guid}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Range{' '}
          <select value={range} onChange={(e) => setRange(e.currentTarget.value as Range)}>
            {Object.keys(RANGES).map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
      </div>
      {node && !node.online ? (
        <p class="warning" role="status">
          Telemetry is stale: {node.name} is offline.
        </p>
      ) : null}
      <div class="charts">{data ? CHARTS.map((def) => <Chart key={def.key} def={def} columns={columnsOf(def, data, guid)} />) : null}</div>
    </div>
  );
}
