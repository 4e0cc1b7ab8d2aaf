/**
 * `kern.boottime` as sysctl(8) prints it: freebsd-src sbin/sysctl/sysctl.c S_timeval formats the struct timeval as
 * `{ sec = %jd, usec = %ld } ` followed by ctime(3) of the seconds in the host's zone, newline cut:
 * `{ sec = 1790798684, usec = 725700 } Wed Sep 30 16:04:44 2026`. Only `sec` is read: the ctime text is local time
 * and says nothing `sec` does not. Returns Unix seconds, or undefined when the text is not that format (the host's
 * boot time is then left out of the report rather than guessed).
 */
export function parseBoottime(value: string): number | undefined {
  const m = /^\{ sec = (\d+), usec = \d+ \}/.exec(value.trim());
  if (!m) return undefined;
  const sec = Number(m[1]);
  return Number.isSafeInteger(sec) ? sec : undefined;
}
