/**
 * A directory of host programs for the production agent (dist/agent/agent.js, local executor) on this Linux
 * machine: one shell script per program the simulator answers (simulator/profiles.ts PROGRAM_DIRS), each
 * running the simulator's one-command CLI (simulator/cli.ts, bundled here once) against one state file.
 * Given to the agent as its PATH (HM_AGENT_PATH), it makes the agent spawn a real process per host command,
 * as on FreeBSD; what those processes cost is theirs, not the agent's (its /proc stat counts itself only).
 * Every call appends its program's name to `<dir>/calls.log`.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { PROGRAM_DIRS } from '#simulator/profiles';
import { REQUIRE_BANNER } from '#scripts/build/builtins-require';

export async function simulatorPrograms(dir: string): Promise<string> {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const cli = join(dir, 'simulator-cli.mjs');
  await esbuild.build({
    entryPoints: [resolve('simulator/cli.ts')],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    outfile: cli,
    banner: { js: REQUIRE_BANNER },
    logLevel: 'warning',
  });
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  for (const name of Object.keys(PROGRAM_DIRS)) {
    const file = join(bin, name);
    // each call leaves its program's name in calls.log: the agent's host commands per minute
    writeFileSync(file, `#!/bin/sh\necho ${q(name)} >> ${q(join(dir, 'calls.log'))}\nexec ${q(process.execPath)} ${q(cli)} ${q(name)} "$@"\n`);
    chmodSync(file, 0o755);
  }
  return bin;
}
