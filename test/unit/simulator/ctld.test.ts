import { fixture, host, simulate } from './sim-helper.ts';
import { checkCtlConf, ctldRejection } from '#simulator/commands/ctl-conf-check';
import { renderCtlConf } from '#agent/drivers/ctl-conf';
import type { IscsiConfig } from '#shared/jobs/protocol';

const config: IscsiConfig = {
  portalGroups: [{ name: 'pg0', discoveryAuthGroup: 'no-authentication', listen: ['0.0.0.0:3260', '[::]:3260'] }],
  targets: [
    { name: 'iqn.2012-06.org.example:db', alias: 'Database disks', authGroup: 'no-authentication', portalGroup: 'pg0', luns: [{ number: 0, zvol: 'tank/iscsi/db0' }, { number: 3, zvol: 'tank/iscsi/db%1' }] },
    { name: 'iqn.2012-06.org.example:empty', alias: '', authGroup: 'no-authentication', portalGroup: 'pg0', luns: [] },
  ],
};

describe('ctl.conf: the agent renders, the simulated ctld reads', () => {
  test("ctld's checker reads the man page's example (auth-groups, several listens, options) as ctld does", () => {
    const s = checkCtlConf(fixture('ctl-conf-example.txt'));
    expect(s.portalGroups).toEqual(['example2']);
    expect(s.targets.map((t) => [t.name, t.luns.map((l) => `${l.number}:${l.path}`)])).toEqual([
      ['iqn.2012-06.com.example:target0', ['0:/dev/zvol/example_0']],
      ['iqn.2012-06.com.example:target3', ['0:/dev/zvol/example_3']],
      ['iqn.2012-06.com.example:target2', ['0:/dev/zvol/example2_0', '1:/dev/zvol/example2_1']],
    ]);
  });

  test('the rendered file has the layout of the example (TABs, lun blocks) and reads back to the same LUNs', () => {
    const text = renderCtlConf(config);
    expect(text).toContain('portal-group pg0 {\n\tdiscovery-auth-group no-authentication\n\tlisten 0.0.0.0:3260\n\tlisten [::]:3260\n}\n');
    expect(text).toContain('target iqn.2012-06.org.example:db {\n\talias "Database disks"\n\tauth-group no-authentication\n\tportal-group pg0\n\tlun 0 {\n\t\tpath /dev/zvol/tank/iscsi/db0\n\t}\n');
    // `%` is not a bare word for ctld's lexer: quoted
    expect(text).toContain('\t\tpath "/dev/zvol/tank/iscsi/db%1"\n');
    const s = checkCtlConf(text);
    expect(s.targets[0].luns).toEqual([
      { number: 0, path: '/dev/zvol/tank/iscsi/db0' },
      { number: 3, path: '/dev/zvol/tank/iscsi/db%1' },
    ]);
  });

  test("ctld's refusals: a listen address that does not parse, an unknown portal-group, a syntax error", () => {
    const bad = renderCtlConf({ ...config, portalGroups: [{ ...config.portalGroups[0], listen: ['192.0.2.300:3260'] }] });
    expect(ctldRejection(bad)).toBe('ctld: invalid listen address 192.0.2.300:3260\nctld: configuration error; exiting\n');
    const unknown = renderCtlConf({ ...config, targets: [{ ...config.targets[0], portalGroup: 'pg9' }] });
    expect(ctldRejection(unknown)).toBe('ctld: unknown portal-group "pg9" for target "iqn.2012-06.org.example:db"\nctld: configuration error; exiting\n');
    expect(ctldRejection('target t0 {\n\tlun 0 {\n\t\tpath /dev/zvol/a/b\n\t}\n\tbogus x\n}\n')).toBe("ctld: error in configuration file at line 5 near 'bogus': syntax error\nctld: configuration error; exiting\n");
    expect(ctldRejection(renderCtlConf(config))).toBeNull();
  });

  test('ctld -t -f and service ctld on the simulated host', async () => {
    const h = simulate(host({ files: { '/etc/ok.conf': { content: renderCtlConf(config), mode: '0600' }, '/etc/bad.conf': { content: 'portal-group p {\n\tlisten nowhere\n}\n', mode: '0600' } } }));
    expect(await h.exec.run(['ctld', '-t', '-f', '/etc/ok.conf'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await h.exec.run(['ctld', '-t', '-f', '/etc/bad.conf'])).toMatchObject({ code: 1, stderr: 'ctld: invalid listen address nowhere\nctld: configuration error; exiting\n' });
    expect(await h.exec.run(['service', 'ctld', 'onestatus'])).toMatchObject({ code: 1, stdout: 'ctld is not running.\n' });
    expect(await h.exec.run(['service', 'ctld', 'onereload'])).toMatchObject({ code: 1 });
    await h.exec.run(['mv', '/etc/ok.conf', '/etc/ctl.conf']);
    expect(await h.exec.run(['service', 'ctld', 'onestart'])).toMatchObject({ code: 0, stdout: 'Starting ctld.\n' });
    expect(await h.exec.run(['service', 'ctld', 'onestatus'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ctld is running as pid \d+\.\n$/) });
    expect(await h.exec.run(['service', 'ctld', 'onereload'])).toMatchObject({ code: 0, stdout: 'Reloading ctld config files.\n' });
  });
});
