import { runScenarios } from '#agent/check/runner';
import { SCENARIOS } from '#agent/check/scenarios/index';
import { probeCapabilities } from '#agent/drivers/host-capabilities';
import type { Executor } from '#agent/executors/executor';
import { isDir, readFile, writeFile } from '#simulator/file-tree';
import { jailHost, simulatedHost } from '../helpers/simulated-host.ts';

/**
 * The kit removes only what it made: a product directory it had to create (the host lacked /etc/jail.conf.d and
 * /usr/local/etc/hostmgr) goes only when empty, so what the real agent wrote there during the run stays; the
 * directories it named itself go whole.
 */
test('the jail scenario leaves a product directory the real agent wrote into meanwhile, and removes the ones still empty', async () => {
  const seed = jailHost();
  const host = { ...seed, files: { '/rescue/sh': { content: '\x7fELF (statically linked crunched binary)\n', mode: '555' } }, dirs: ['/var/tmp', '/var/log'] };
  const exec = simulatedHost(host);
  const sim = exec.simulator;
  expect(await sim.state((s) => [isDir(s, '/usr/local/etc/hostmgr'), isDir(s, '/etc/jail.conf.d')])).toEqual([false, false]);
  // the real agent writes its own file under /usr/local/etc/hostmgr while the scratch jail runs
  const agentFile = '/usr/local/etc/hostmgr/agent.env';
  const meanwhile: Executor = {
    kind: exec.kind,
    run: async (argv, opts) => {
      const r = await exec.run(argv, opts);
      if (argv[0] === 'jail' && argv.includes('-c')) await sim.state((s) => void writeFile(s, agentFile, 'HM_NODE_ID=n1\n', '600', true));
      return r;
    },
  };
  const notes: string[] = [];
  const results = await runScenarios(
    meanwhile,
    SCENARIOS.filter((s) => s.name === 'jail'),
    {
      options: { id: 'd1r5', scratchPool: 'hm-check-d1r5', startVm: false, iscsi: false },
      caps: await probeCapabilities(exec),
      signal: new AbortController().signal,
      note: (l) => notes.push(l),
    },
  );
  expect(results.map((r) => [r.name, r.verdict, r.cleanupErrors])).toEqual([['jail', 'ok', []]]);
  const after = await sim.state((s) => ({
    agentFile: readFile(s, agentFile),
    hostmgr: isDir(s, '/usr/local/etc/hostmgr'),
    jailsState: isDir(s, '/usr/local/etc/hostmgr/jails'),
    jailConfD: isDir(s, '/etc/jail.conf.d'),
    root: isDir(s, '/var/tmp/hm-check-d1r5-jail'),
  }));
  expect(after).toEqual({ agentFile: 'HM_NODE_ID=n1\n', hostmgr: true, jailsState: false, jailConfD: false, root: false });
  expect(notes).toContainEqual(expect.stringMatching(/^jail: left \/usr\/local\/etc\/hostmgr: rmdir: \/usr\/local\/etc\/hostmgr: Directory not empty$/));
});

test('simulated rmdir: an empty directory goes, a non-empty or missing one is refused in rmdir.c’s words', async () => {
  const exec = simulatedHost({ ...jailHost(), dirs: ['/a/b', '/c'] });
  await exec.simulator.state((s) => void writeFile(s, '/a/b/f', 'x'));
  expect(await exec.run(['rmdir', '/c'])).toEqual({ code: 0, stdout: '', stderr: '' });
  expect(await exec.run(['rmdir', '/a/b', '/nope'])).toEqual({
    code: 1,
    stdout: '',
    stderr: 'rmdir: /a/b: Directory not empty\nrmdir: /nope: No such file or directory\n',
  });
});
