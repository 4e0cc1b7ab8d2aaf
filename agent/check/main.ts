/**
 * host-check: the host conformance kit's process entry (`npm run host-check`, dist/agent/host-check.js).
 * Ctrl-C, SIGTERM (kill, a service manager) and SIGHUP (the terminal or SSH session went away) stop the run after
 * the command in flight and clean up — each would otherwise end the process with the scratch resources and a
 * changed tunable left on the host; a second signal is refused while cleaning up.
 */
import { hostCheckCli } from './cli.ts';

const interrupt = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    if (!interrupt.signal.aborted) {
      process.stderr.write(`host-check: ${sig}; removing the scratch resources (another signal does not stop the cleanup)\n`);
      interrupt.abort(sig);
    } else process.stderr.write('host-check: still cleaning up\n');
  });
}
const code = await hostCheckCli(process.argv.slice(2), {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  signal: interrupt.signal,
});
process.exitCode = code;
