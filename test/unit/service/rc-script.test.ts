import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RC_PATH } from '#simulator/profiles';

/**
 * The shipped rc.d script, run by /bin/sh with what rc.subr would give it: the stub's run_rc_command prints the
 * PATH the service (and so the agent) gets and daemon(8)'s arguments.
 */
const dir = mkdtempSync(join(tmpdir(), 'hm-rc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runScript(rcConf = ''): { path: string; args: string[] } {
  const stub = join(dir, 'rc.subr');
  writeFileSync(
    stub,
    `load_rc_config() { ${rcConf || ':'}; }\nerr() { echo "err: $*" >&2; exit 1; }\nrun_rc_command() { printf '%s\\n' "$PATH"; printf '%s\\n' "$command_args"; }\n`,
  );
  const script = join(dir, 'hostmgr_agent');
  writeFileSync(script, readFileSync('agent/service/hostmgr-agent', 'utf8').replace('. /etc/rc.subr', `. ${stub}`));
  // service(8): env -i … PATH=/sbin:/bin:/usr/sbin:/usr/bin "$dir/$script" (usr.sbin/service/service.sh)
  const out = execFileSync('/bin/sh', [script, 'start'], { env: { HOME: '/', PATH: RC_PATH }, encoding: 'utf8' });
  const [path, ...rest] = out.trim().split('\n');
  return { path, args: rest.join(' ').split(/\s+/).filter(Boolean) };
}

test('the service PATH gets /usr/local/sbin and /usr/local/bin (virsh is /usr/local/bin/virsh)', () => {
  expect(runScript().path).toBe(`${RC_PATH}:/usr/local/sbin:/usr/local/bin`);
});

test('daemon(8) reopens its log on SIGHUP (-H with -o), so newsyslog can rotate it', () => {
  const { args } = runScript('hostmgr_agent_logfile=/var/log/x.log');
  const o = args.indexOf('-o');
  expect(args[o + 1]).toBe('/var/log/x.log');
  // every daemon flag comes before the command (/usr/bin/env …): getopt stops at the first operand
  expect(args.indexOf('-H')).toBeGreaterThan(-1);
  expect(args.indexOf('-H')).toBeLessThan(args.indexOf('/usr/bin/env'));
});

test("node's own flags go between node and the agent's script: the light-memory defaults, or rc.conf's", () => {
  const at = (args: string[]) => args.slice(args.indexOf('/usr/local/bin/node') + 1, args.indexOf('/usr/local/libexec/hostmgr/agent.js'));
  expect(at(runScript().args)).toEqual(['--max-semi-space-size=1', '--lite-mode']);
  expect(at(runScript('hostmgr_agent_node_flags="--max-old-space-size=256"').args)).toEqual(['--max-old-space-size=256']);
});
