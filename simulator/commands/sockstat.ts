import { getopt } from '../format.ts';
import { registerCommand, withUsage } from '../registry.ts';

/**
 * sockstat(1), the listening sockets of the seeded `listeningSockets` (usr.bin/sockstat/sockstat.c): `-l`
 * listening only (the only ones simulated), `-4`/`-6` the families, `-p ports` (comma-separated), `-q` no header.
 * Columns USER COMMAND PID FD PROTO LOCAL ADDRESS FOREIGN ADDRESS, left-aligned.
 */
registerCommand(
  'sockstat',
  withUsage((ctx) => {
    const o = getopt(ctx.args, '46CcIij:LlnP:p:qSsUuvw');
    const ports = o.values.get('p')?.split(',').map(Number);
    const v4 = o.flags.has('4') || !o.flags.has('6');
    const v6 = o.flags.has('6') || !o.flags.has('4');
    const rows = (ctx.state.listeningSockets ?? [])
      .filter((s) => (s.proto.endsWith('4') ? v4 : v6) && (!ports || ports.includes(s.port)))
      .map((s) => [s.user ?? 'root', s.command, String(s.pid), String(s.fd ?? 3), s.proto, `*:${s.port}`, '*:*']);
    const header = o.flags.has('q') ? [] : [['USER', 'COMMAND', 'PID', 'FD', 'PROTO', 'LOCAL ADDRESS', 'FOREIGN ADDRESS']];
    const widths = [8, 10, 5, 3, 6, 21, 21];
    const text = [...header, ...rows].map((r) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]) : c)).join(' ')).join('\n');
    return { stdout: text ? `${text}\n` : '' };
  }, 'usage: sockstat [-46CcIiLlnqSsUuvw] [-j jid] [-p ports] [-P protocols]'),
);
