import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { agentCommand, productionAgentCommand } from '#scripts/stack/agent';
import { tokenFor } from '../helpers/api.ts';
import { startTestAgent } from '../helpers/agent.ts';

const run = (args: string[], env: NodeJS.ProcessEnv = {}, command = agentCommand()) => {
  const r = spawnSync(process.execPath, [...command, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('agent command line', () => {
  test('--help documents every option with its environment variable', () => {
    const r = run(['--help']);
    expect(r.code).toBe(0);
    for (const s of [
      '--api-url',
      'HM_API_URL',
      '--token',
      '--queue-url',
      '--executor',
      'local | ssh | simulator',
      '--concurrency',
      '--heartbeat-interval',
      'SIGTERM',
    ])
      expect(r.out).toContain(s);
  });

  test('configuration errors name the option and exit 2', () => {
    expect(run([])).toMatchObject({ code: 2, err: expect.stringContaining('--api-url (HM_API_URL) is required') });
    expect(run(['--api-url', 'http://x/api'])).toMatchObject({ code: 2, err: expect.stringContaining('--token (HM_AGENT_TOKEN)') });
    expect(run(['--api-url', 'http://x/api', '--token', 't', '--executor', 'telnet'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--executor (HM_EXECUTOR): must be one of local, ssh, simulator'),
    });
    // an SSH executor pins the host key, or is told explicitly not to
    expect(run(['--api-url', 'http://x/api', '--token', 't', '--executor', 'ssh', '--ssh-host', 'h'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--ssh-host-key (HM_SSH_HOST_KEY) is required with --executor ssh (or --insecure-accept-any-host-key)'),
    });
    expect(run(['--api-url', 'http://x/api', '--token', 't', '--executor', 'ssh', '--ssh-host', 'h', '--ssh-host-key', 'md5:aa'])).toMatchObject({
      code: 2,
      err: expect.stringContaining('--ssh-host-key (HM_SSH_HOST_KEY): must be SHA256:'),
    });
    expect(run(['--bogus'])).toMatchObject({ code: 2, err: expect.stringContaining("Unknown option '--bogus'") });
    // environment works like flags
    expect(run([], { HM_API_URL: 'http://x/api', HM_AGENT_TOKEN: 't', HM_CONCURRENCY: '0' })).toMatchObject({
      code: 2,
      err: expect.stringContaining('--concurrency (HM_CONCURRENCY): must be an integer 1–64'),
    });
  });

  test('the production agent has the same options and no simulator: asked for it, it names the simulator build', () => {
    const help = run(['--help'], {}, productionAgentCommand());
    expect(help).toMatchObject({ code: 0, out: run(['--help']).out });
    expect(
      run(
        ['--api-url', 'http://x/api', '--token', 't', '--executor', 'simulator', '--simulator-state', '/nonexistent/host.json'],
        {},
        productionAgentCommand(),
      ),
    ).toMatchObject({
      code: 2,
      err: expect.stringContaining('--executor simulator: this agent build has no host simulator; run the simulator build, dist/simulator/agent.js'),
    });
    // its other configuration errors are the same as ever
    expect(run(['--api-url', 'http://x/api', '--token', 't', '--executor', 'telnet'], {}, productionAgentCommand())).toMatchObject({
      code: 2,
      err: expect.stringContaining('must be one of local, ssh, simulator'),
    });
  });

  test('an agent whose token belongs to another node is refused at registration and exits 1', async () => {
    // a host started with a token bound to some other node
    const other = await tokenFor('agent', randomUUID());
    const bad = await startTestAgent({ nodeId: randomUUID(), env: { HM_AGENT_TOKEN: other } });
    expect(await bad.proc.exited).toBe(1);
    expect(bad.log()).toMatch(/registration refused: 403 forbidden/);
  });
});
