/**
 * host-check: the host conformance kit's process entry (`npm run host-check`, dist/agent/host-check.js).
 * Ctrl-C stops the run after the command in flight and cleans up; a second Ctrl-C is refused while cleaning up.
 */
import { hostCheckCli } from './cli.ts';

const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (!interrupt.signal.aborted) {
    process.stderr.write('host-check: interrupted; removing the scratch resources (Ctrl-C again does not stop the cleanup)\n');
    interrupt.abort();
  } else process.stderr.write('host-check: still cleaning up\n');
});
const code = await hostCheckCli(process.argv.slice(2), {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  signal: interrupt.signal,
});
process.exitCode = code;
