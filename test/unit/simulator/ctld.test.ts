import { readFileSync } from 'node:fs';
import { fixture, host, simulate } from './sim-helper.ts';
import { checkCtlConf, ctldRejection } from '#agent/drivers/ctl-conf-check';
import { renderCtlConf } from '#agent/drivers/ctl-conf';
import type { IscsiConfig } from '#shared/agent-api/task-kinds';
import type { SimHost } from '#shared/seed/host/schema';

const config: IscsiConfig = {
  portalGroups: [{ name: 'pg0', discoveryAuthGroup: 'no-authentication', listen: ['0.0.0.0:3260', '[::]:3260'] }],
  targets: [
    {
      name: 'iqn.2012-06.org.example:db',
      alias: 'Database disks',
      authGroup: 'no-authentication',
      portalGroup: 'pg0',
      luns: [
        { number: 0, zvol: 'tank/iscsi/db0' },
        { number: 3, zvol: 'tank/iscsi/db%1' },
      ],
    },
    { name: 'iqn.2012-06.org.example:empty', alias: '', authGroup: 'no-authentication', portalGroup: 'pg0', luns: [] },
  ],
};
const zvols = (...names: string[]): SimHost['datasets'] => names.map((name) => ({ name, type: 'volume' as const, usedBytes: 2 ** 30, volsizeBytes: 2 ** 30 }));
const refusal = (msg: string) => `ctld: ${msg}\nctld: configuration error; exiting\n`;

describe("ctl.conf: the agent renders, ctld's grammar reads", () => {
  test("the checker reads the man page's example (auth-groups, several listens, options) as ctld does", () => {
    const s = checkCtlConf(fixture('ctl-conf-example.txt'));
    expect(s.portalGroups).toEqual(['example2']);
    expect(s.targets.map((t) => [t.name, t.portalGroups, t.luns.map((l) => `${l.number}:${l.path}`)])).toEqual([
      ['iqn.2012-06.com.example:target0', ['default'], ['0:/dev/zvol/example_0']],
      ['iqn.2012-06.com.example:target3', ['default'], ['0:/dev/zvol/example_3']],
      ['iqn.2012-06.com.example:target2', ['example2'], ['0:/dev/zvol/example2_0', '1:/dev/zvol/example2_1']],
    ]);
  });

  test('the rendered file quotes every name and path, and reads back to the same LUNs', () => {
    const text = renderCtlConf(config);
    expect(text).toContain('portal-group "pg0" {\n\tdiscovery-auth-group "no-authentication"\n\tlisten "0.0.0.0:3260"\n\tlisten "[::]:3260"\n}\n');
    expect(text).toContain(
      'target "iqn.2012-06.org.example:db" {\n\talias "Database disks"\n\tauth-group "no-authentication"\n\tportal-group "pg0"\n\tlun 0 {\n\t\tpath "/dev/zvol/tank/iscsi/db0"\n\t}\n',
    );
    const s = checkCtlConf(text);
    expect(s.targets[0].luns).toEqual([
      { number: 0, path: '/dev/zvol/tank/iscsi/db0' },
      { number: 3, path: '/dev/zvol/tank/iscsi/db%1' },
    ]);
    // ctld accepts it and logs only the LUN-less target
    expect(ctldRejection(text)).toBeNull();
    expect(s.warnings).toEqual(['no LUNs defined for target "iqn.2012-06.org.example:empty"']);
  });

  test('a name that is one of ctld’s keywords: a bare word lexes as the keyword (syntax error), quoted it is a name', () => {
    for (const name of ['port', 'size', 'tag', 'target', 'be', 'cs0', 'foreign']) {
      const bare = `portal-group ${name} {\n\tlisten 0.0.0.0\n}\n`;
      expect(ctldRejection(bare)).toBe(refusal(`error in configuration file at line 1 near '${name}': syntax error`));
      expect(ctldRejection(`portal-group "${name}" {\n\tlisten 0.0.0.0\n}\n`)).toBeNull();
    }
    // the writer's output for such names is accepted
    const named = renderCtlConf({
      ...config,
      portalGroups: [{ ...config.portalGroups[0], name: 'port' }],
      targets: config.targets.map((t) => ({ ...t, portalGroup: 'port' })),
    });
    expect(ctldRejection(named)).toBeNull();
  });

  test('an auth-group that no block defines is refused, as ctld refuses it; the built-in ones are known', () => {
    const withGroup = (authGroup: string) => renderCtlConf({ ...config, targets: [{ ...config.targets[0], authGroup }] });
    expect(ctldRejection(withGroup('chap-users'))).toBe(refusal('unknown auth-group "chap-users" for target "iqn.2012-06.org.example:db"'));
    for (const g of ['default', 'no-authentication', 'no-access']) expect(ctldRejection(withGroup(g))).toBeNull();
    const discovery = renderCtlConf({ ...config, portalGroups: [{ ...config.portalGroups[0], discoveryAuthGroup: 'chap-users' }] });
    expect(ctldRejection(discovery)).toBe(refusal('unknown discovery-auth-group "chap-users" for portal-group "pg0"'));
    // defined by a block, it is known
    expect(ctldRejection(`auth-group "chap-users" {\n\tchap user secretsecret12\n}\n${withGroup('chap-users')}`)).toBeNull();
  });

  test("ctld's other refusals: listen address, unknown portal-group, syntax, LUN number, lexer corners", () => {
    const bad = renderCtlConf({ ...config, portalGroups: [{ ...config.portalGroups[0], listen: ['192.0.2.300:3260'] }] });
    expect(ctldRejection(bad)).toBe(refusal('invalid listen address 192.0.2.300:3260'));
    const unknown = renderCtlConf({ ...config, targets: [{ ...config.targets[0], portalGroup: 'pg9' }] });
    expect(ctldRejection(unknown)).toBe(refusal('unknown portal-group "pg9" for target "iqn.2012-06.org.example:db"'));
    expect(ctldRejection('target iqn.a:t0 {\n\tlun 0 {\n\t\tpath /dev/zvol/a/b\n\t}\n\tbogus x\n}\n')).toBe(
      refusal("error in configuration file at line 5 near 'bogus': syntax error"),
    );
    expect(ctldRejection('target iqn.a:t0 {\n\tlun 1024 {\n\t\tpath /dev/zvol/a/b\n\t}\n}\n')).toBe(
      refusal("error in configuration file at line 2 near '{': LU number is too big"),
    );
    expect(ctldRejection('target iqn.a:t0 {\n\tlun 0 {\n\t}\n}\n')).toBe(refusal('missing path for lun "iqn.a:t0,lun,0"'));
    // `%` is not a bare-word character: unquoted, the path is three strings
    expect(ctldRejection('target iqn.a:t0 {\n\tlun 0 {\n\t\tpath /dev/zvol/a%b\n\t}\n}\n')).toBe(
      refusal("error in configuration file at line 3 near '%': syntax error"),
    );
    // an empty quoted string is not a string: `"` alone is a one-character string, then `"` again
    expect(ctldRejection('target iqn.a:t0 {\n\talias ""\n}\n')).toBe(refusal(`error in configuration file at line 2 near '"': syntax error`));
    expect(ctldRejection('target iqn.a:T0 { lun 0 { path /dev/zvol/a } }\ntarget iqn.a:t0 { lun 0 { path /dev/zvol/b } }\n')).toBe(
      refusal('duplicated target "iqn.a:t0"'),
    );
  });
});

describe('simulated ctld, service ctld, ctladm', () => {
  const good = renderCtlConf({ ...config, targets: [{ ...config.targets[0], luns: [{ number: 0, zvol: 'tank/iscsi/db0' }] }] });
  const missingZvol = renderCtlConf({
    ...config,
    targets: [
      {
        ...config.targets[0],
        luns: [
          { number: 0, zvol: 'tank/iscsi/db0' },
          { number: 1, zvol: 'tank/iscsi/gone' },
        ],
      },
    ],
  });

  test.each(['freebsd-14.3', 'freebsd-15.0'] as const)('%s: ctld -t checks a file; an unknown option is getopt’s complaint and the usage', async (profile) => {
    const h = simulate(
      host({
        profile,
        files: { '/etc/ok.conf': { content: good, mode: '0600' }, '/etc/bad.conf': { content: 'portal-group p {\n\tlisten nowhere\n}\n', mode: '0600' } },
      }),
    );
    expect(await h.exec.run(['ctld', '-t', '-f', '/etc/ok.conf'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await h.exec.run(['ctld', '-t', '-f', '/etc/bad.conf'])).toMatchObject({ code: 1, stderr: refusal('invalid listen address nowhere') });
    expect(await h.exec.run(['ctld', '-x'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ctld: illegal option -- x\nusage: ctld [-d][-u][-f config-file]\n       ctld -t [-u][-f config-file]\n',
    });
  });

  test('asking whether ctld runs changes nothing on a host that never ran it', async () => {
    const h = simulate(host());
    await h.exec.run(['sysctl', '-n', 'kern.ostype']);
    const before = readFileSync(h.statePath, 'utf8');
    expect(await h.exec.run(['service', 'ctld', 'onestatus'])).toMatchObject({ code: 1, stdout: 'ctld is not running.\n' });
    expect(readFileSync(h.statePath, 'utf8')).toBe(before);
  });

  test('a zvol CTL serves is busy to zfs destroy (an owned objset: EBUSY); once ctld lets it go, it is destroyed', async () => {
    const datasets = [{ name: 'tank/iscsi', type: 'filesystem' as const, usedBytes: 2 ** 20 }, ...zvols('tank/iscsi/db0', 'tank/iscsi/db1')];
    const h = simulate(host({ datasets, files: { '/etc/ctl.conf': { content: good, mode: '0600' } } }));
    expect(await h.exec.run(['service', 'ctld', 'onestart'])).toMatchObject({ code: 0 });
    expect(await h.exec.run(['zfs', 'destroy', 'tank/iscsi/db0'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "cannot destroy 'tank/iscsi/db0': dataset is busy\n",
    });
    // -r goes past the held zvol: the one no LUN uses goes, the held one and its parent (EEXIST: a child left) stay
    expect(await h.exec.run(['zfs', 'destroy', '-r', 'tank/iscsi'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "cannot destroy 'tank/iscsi/db0': dataset is busy\ncannot destroy 'tank/iscsi': dataset already exists\n",
    });
    expect((await h.exec.run(['zfs', 'list', '-H', '-o', 'name', '-r', 'tank/iscsi'])).stdout).toBe('tank/iscsi\ntank/iscsi/db0\n');
    expect(await h.exec.run(['service', 'ctld', 'onestop'])).toMatchObject({ code: 0 });
    expect(await h.exec.run(['zfs', 'destroy', 'tank/iscsi/db0'])).toMatchObject({ code: 0 });
    expect((await h.exec.run(['zfs', 'list', '-H', '-o', 'name', '-t', 'volume'])).stdout).toBe('');
  });

  test('start, status, reload, and what ctladm then lists', async () => {
    const h = simulate(host({ datasets: zvols('tank/iscsi/db0', 'tank/iscsi/db1'), files: { '/etc/ctl.conf': { content: good, mode: '0600' } } }));
    expect(await h.exec.run(['service', 'ctld', 'onestatus'])).toMatchObject({ code: 1, stdout: 'ctld is not running.\n' });
    expect(await h.exec.run(['service', 'ctld', 'onereload'])).toMatchObject({ code: 1 });
    expect(await h.exec.run(['service', 'ctld', 'start'])).toEqual({
      code: 0,
      stdout: "Cannot 'start' ctld. Set ctld_enable to YES in /etc/rc.conf or use 'onestart' instead of 'start'.\n",
      stderr: '',
    });
    expect(await h.exec.run(['service', 'ctld', 'onestart'])).toMatchObject({ code: 0, stdout: 'Starting ctld.\n' });
    expect(await h.exec.run(['service', 'ctld', 'onestatus'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ctld is running as pid \d+\.\n$/) });
    expect((await h.exec.run(['ctladm', 'portlist'])).stdout).toBe(
      'Port Online Frontend Name     pp vp\n0    YES    ioctl    ioctl    0  0  \n1    YES    tpc      tpc      0  0  \n2    YES    iscsi    iscsi    257 1  iqn.2012-06.org.example:db,t,0x0101\n',
    );
    expect((await h.exec.run(['ctladm', 'portlist', '-f', 'iscsi', '-q', '-l', '-p', '2'])).stdout).toBe(
      '2    YES    iscsi    iscsi    257 1  iqn.2012-06.org.example:db,t,0x0101\n  LUN 0: 0\n',
    );
    expect((await h.exec.run(['ctladm', 'devlist', '-v'])).stdout).toBe(
      'LUN Backend       Size (Blocks)   BS Serial Number    Device ID       \n' +
        '  0 block               2097152  512 MYSERIAL0000     MYDEVID0000     \n' +
        '      lun_type=0\n      num_threads=14\n      file=/dev/zvol/tank/iscsi/db0\n      ctld_name=iqn.2012-06.org.example:db,lun,0\n      scsiname=iqn.2012-06.org.example:db,lun,0\n',
    );
    // a second LUN by reload: the first keeps its CTL id
    const two = renderCtlConf({
      ...config,
      targets: [
        {
          ...config.targets[0],
          luns: [
            { number: 0, zvol: 'tank/iscsi/db0' },
            { number: 1, zvol: 'tank/iscsi/db1' },
          ],
        },
      ],
    });
    await h.exec.run(['tee', '/etc/ctl.conf'], { stdin: two });
    expect(await h.exec.run(['service', 'ctld', 'onereload'])).toMatchObject({ code: 0, stdout: 'Reloading ctld config files.\n' });
    expect((await h.exec.run(['ctladm', 'portlist', '-f', 'iscsi', '-l', '-p', '2', '-q'])).stdout).toBe(
      '2    YES    iscsi    iscsi    257 1  iqn.2012-06.org.example:db,t,0x0101\n  LUN 0: 0\n  LUN 1: 1\n',
    );
    // a refused file: SIGHUP is only logged, service exits 0, the kernel keeps the old configuration
    await h.exec.run(['tee', '/etc/ctl.conf'], { stdin: 'portal-group port {\n}\n' });
    expect(await h.exec.run(['service', 'ctld', 'onereload'])).toMatchObject({ code: 0 });
    expect((await h.exec.run(['ctladm', 'devlist'])).stdout.split('\n').filter(Boolean)).toHaveLength(3);
    expect(await h.exec.run(['service', 'ctld', 'onestop'])).toMatchObject({ code: 0 });
    expect((await h.exec.run(['ctladm', 'devlist'])).stdout).toBe('LUN Backend       Size (Blocks)   BS Serial Number    Device ID       \n');
  });

  test('freebsd-14.3: a LUN whose zvol does not exist fails `service ctld onestart` (ctld applies before daemonizing)', async () => {
    const h = simulate(
      host({ profile: 'freebsd-14.3', datasets: zvols('tank/iscsi/db0'), files: { '/etc/ctl.conf': { content: missingZvol, mode: '0600' } } }),
    );
    const res = await h.exec.run(['service', 'ctld', 'onestart']);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'ctld: error returned from LUN creation request: error opening /dev/zvol/tank/iscsi/gone: 2\nctld: failed to add lun "iqn.2012-06.org.example:db,lun,1"\nctld: failed to apply configuration; exiting\n',
    );
    expect((await h.exec.run(['service', 'ctld', 'onestatus'])).code).toBe(1);
  });

  test('freebsd-15.0: the same file — `service ctld onestart` exits 0 (ctld daemonized first), yet ctld is gone and the LUN is not served', async () => {
    const h = simulate(
      host({ profile: 'freebsd-15.0', datasets: zvols('tank/iscsi/db0'), files: { '/etc/ctl.conf': { content: missingZvol, mode: '0600' } } }),
    );
    expect(await h.exec.run(['service', 'ctld', 'onestart'])).toMatchObject({ code: 0, stdout: 'Starting ctld.\n' });
    expect((await h.exec.run(['service', 'ctld', 'onestatus'])).code).toBe(1);
    expect((await h.exec.run(['ctladm', 'portlist', '-f', 'iscsi', '-l', '-q', '-p', '2'])).stdout).toBe(
      '2    YES    iscsi    iscsi    257 1  iqn.2012-06.org.example:db,t,0x0101\n  LUN 0: 0\n',
    );
  });

  test('sysrc edits rc.conf as sysrc(8) does, and a reboot starts ctld when ctld_enable is YES', async () => {
    const h = simulate(
      host({
        datasets: zvols('tank/iscsi/db0'),
        files: { '/etc/ctl.conf': { content: good, mode: '0600' }, '/etc/rc.conf': { content: 'hostname="sim"\nctld_enable="NO" # off\n', mode: '0644' } },
      }),
    );
    expect(await h.exec.run(['sysrc', 'ctld_enable'])).toEqual({ code: 0, stdout: 'ctld_enable: NO\n', stderr: '' });
    expect(await h.exec.run(['sysrc', 'nosuch_enable'])).toEqual({ code: 1, stdout: '', stderr: "sysrc: unknown variable 'nosuch_enable'\n" });
    expect(await h.exec.run(['sysrc', 'ctld_enable=YES'])).toEqual({ code: 0, stdout: 'ctld_enable: NO -> YES\n', stderr: '' });
    // the comment after the value stays (f_sysrc_set_awk rewrites only the value)
    expect((await h.exec.run(['cat', '/etc/rc.conf'])).stdout).toBe('hostname="sim"\nctld_enable="YES" # off\n');
    expect(await h.exec.run(['sysrc', '-n', 'ctld_enable'])).toMatchObject({ stdout: 'YES\n' });
    await h.exec.run(['reboot']);
    expect((await h.exec.run(['service', 'ctld', 'status'])).code).toBe(0);
    expect((await h.exec.run(['ctladm', 'devlist'])).stdout).toContain('  0 block ');
  });

  test("sysrc name=value rewrites the last assignment's value as f_sysrc_set_awk does, keeping its quotes and what follows", async () => {
    const rc = (content: string) => simulate(host({ files: { '/etc/rc.conf': { content, mode: '0644' } } }));
    const cat = async (h: ReturnType<typeof rc>) => (await h.exec.run(['cat', '/etc/rc.conf'])).stdout;
    // the last of two assignments; single quotes stay single; leading blanks and a trailing comment stay
    let h = rc("\n\nctld_enable='NO'\n  ctld_enable='NO'   # second\n\n");
    expect(await h.exec.run(['sysrc', 'ctld_enable=YES'])).toMatchObject({ code: 0, stdout: 'ctld_enable: NO -> YES\n' });
    // the file's leading empty lines go (tail -r into a command substitution); its trailing ones stay
    expect(await cat(h)).toBe("ctld_enable='NO'\n  ctld_enable='YES'   # second\n\n");
    // an unquoted value becomes double-quoted; a null assignment gets quotes; escaped quotes are part of the value
    h = rc('ctld_enable=NO # off\nsshd_enable= ;\nsshd_flags="-o \\"A=B\\"" # flags');
    await h.exec.run(['sysrc', 'ctld_enable=YES', 'sshd_enable=YES', 'sshd_flags=-4']);
    expect(await cat(h)).toBe('ctld_enable="YES" # off\nsshd_enable="YES" ;\nsshd_flags="-4" # flags\n');
    // a value sysrc did not write (an expansion) is left alone, and the new assignment follows the file
    h = rc('ctld_enable=$ctld_default\nhostname="sim"\n');
    await h.exec.run(['sysrc', 'ctld_enable=YES']);
    expect(await cat(h)).toBe('ctld_enable=$ctld_default\nhostname="sim"\nctld_enable="YES"\n');
    // set nowhere (or only in the defaults): `echo >>` right after the last byte, newline or not
    h = rc('hostname="sim"');
    await h.exec.run(['sysrc', 'jail_enable=YES']);
    expect(await cat(h)).toBe('hostname="sim"jail_enable="YES"\n');
    // -x: awk prints each kept line with its newline
    h = rc('hostname="sim"\nctld_enable="YES"');
    await h.exec.run(['sysrc', '-x', 'ctld_enable']);
    expect(await cat(h)).toBe('hostname="sim"\n');
  });

  test('sysrc -F names the file of the last assignment; sysrc -x removes every assignment (f_sysrc_find, f_sysrc_delete)', async () => {
    const h = simulate(host({ files: { '/etc/rc.conf': { content: 'hostname="sim"\nctld_enable="YES"\nctld_enable=YES # twice\n', mode: '0644' } } }));
    expect(await h.exec.run(['sysrc', '-F', 'ctld_enable'])).toEqual({ code: 0, stdout: 'ctld_enable: /etc/rc.conf\n', stderr: '' });
    // set nowhere but in the defaults: the defaults file
    expect(await h.exec.run(['sysrc', '-n', '-F', 'jail_enable'])).toEqual({ code: 0, stdout: '/etc/defaults/rc.conf\n', stderr: '' });
    expect(await h.exec.run(['sysrc', '-F', 'nosuch_enable'])).toEqual({ code: 1, stdout: '', stderr: "sysrc: unknown variable 'nosuch_enable'\n" });
    expect(await h.exec.run(['sysrc', '-x', 'ctld_enable'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await h.exec.run(['cat', '/etc/rc.conf'])).stdout).toBe('hostname="sim"\n');
    expect(await h.exec.run(['sysrc', '-n', 'ctld_enable'])).toMatchObject({ stdout: 'NO\n' });
    // a file left with no lines stays, empty (the filtered temporary file replaces it)
    await h.exec.run(['sysrc', '-x', 'hostname']);
    expect(await h.exec.run(['cat', '/etc/rc.conf'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await h.exec.run(['sysrc', '-x', 'nosuch_enable'])).toMatchObject({ code: 1, stderr: "sysrc: unknown variable 'nosuch_enable'\n" });
  });

  test('a seeded running ctld holds what it loaded from the start: reloading the same file leaves the state file as it was', async () => {
    const h = simulate(
      host({ datasets: zvols('tank/iscsi/db0'), ctld: { running: true }, files: { '/etc/ctl.conf': { mode: '600', content: good } }, dirs: [] }),
    );
    await h.exec.run(['sysctl', '-n', 'kern.hostname']);
    const before = readFileSync(h.statePath, 'utf8');
    expect(JSON.parse(before).ctld).toMatchObject({ running: true, loaded: good, kernel: { luns: [{ id: 0, path: '/dev/zvol/tank/iscsi/db0' }] } });
    // the same file written back by cp + mv, then reloaded
    await h.exec.run(['cp', '/etc/ctl.conf', '/etc/ctl.conf.copy']);
    await h.exec.run(['mv', '/etc/ctl.conf.copy', '/etc/ctl.conf']);
    expect(await h.exec.run(['service', 'ctld', 'onereload'])).toMatchObject({ code: 0 });
    expect(readFileSync(h.statePath, 'utf8')).toBe(before);
  });

  test('after a reboot without ctld_enable no ctld runs and CTL is empty', async () => {
    const h = simulate(host({ datasets: zvols('tank/iscsi/db0'), files: { '/etc/ctl.conf': { content: good, mode: '0600' } } }));
    await h.exec.run(['service', 'ctld', 'onestart']);
    await h.exec.run(['reboot']);
    expect((await h.exec.run(['service', 'ctld', 'onestatus'])).code).toBe(1);
    expect((await h.exec.run(['ctladm', 'portlist', '-f', 'iscsi', '-q'])).stdout).toBe('');
  });
});
