/**
 * A time as the operator reads it: the browser's local time with its zone ("28/11/2026, 03:10:00 CET"), and the
 * same instant in UTC on hover (`title`); `dateTime` keeps the exact ISO value for tools.
 */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return <span>{iso}</span>;
  return (
    <time
      dateTime={d.toISOString()}
      title={`${d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, '')} UTC`}
    >
      {d.toLocaleString(undefined, { timeZoneName: 'short' })}
    </time>
  );
}

/** How long ago, in the largest two units ("3 d 4 h", "12 min"). */
export function since(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  return m ? `${m} min` : `${s} s`;
}
