import { CtlConfConflict, mergeCtlConf, readStatements } from '#agent/drivers/ctl-conf-merge';
import { renderCtlConf } from '#agent/drivers/ctl-conf';
import { ctldFlagsUnmanaged } from '#shared/agent-api/capability-rules';
import { ctlConfRefusal } from '#simulator/commands/ctl-conf-reader';
import type { IscsiConfig } from '#shared/agent-api/task-kinds';

/**
 * E13 merges the node's configuration into the host's own /etc/ctl.conf (agent/drivers/ctl-conf-merge.ts): what the
 * host defined stays byte for byte, hostmgr's blocks are added or extended, and an unsafe change is refused naming
 * the statement. The simulated ctld's grammar (simulator/commands/ctl-conf-reader.ts) judges the results.
 */
const HOST_OWN = [
  '# the host admin wrote this',
  'auth-group "ag-chap" {',
  '\tchap "initiator1" "secret123456"',
  '}',
  '',
  'portal-group "pg-host" {',
  '\tdiscovery-auth-group "ag-chap"',
  '\tlisten "0.0.0.0:3260"',
  '}',
  '',
  'target "iqn.2012-06.org.example:host-own" {',
  '\tauth-group "ag-chap"',
  '\tportal-group "pg-host"',
  '\tlun 0 {',
  '\t\tpath "/dev/zvol/tank/host/own0"',
  '\t\toption "pblocksize" "4096"',
  '\t}',
  '}',
  '',
].join('\n');
const NVME = [
  'transport-group "tg0" {',
  '\tlisten tcp 0.0.0.0:4420',
  '}',
  'controller "nqn.2012-06.org.example:nvme0" {',
  '\tauth-group "no-authentication"',
  '\ttransport-group "tg0"',
  '\tnamespace 1 {',
  '\t\tpath /dev/zvol/tank/nvme/ns1',
  '\t}',
  '}',
  '',
].join('\n');

const config = (...zvols: string[]): IscsiConfig => ({
  portalGroups: [{ name: 'pg0', discoveryAuthGroup: 'no-authentication', listen: ['0.0.0.0:3261'] }],
  targets: [
    {
      name: 'iqn.2026-01.org.example:disks',
      alias: '',
      authGroup: 'no-authentication',
      portalGroup: 'pg0',
      luns: zvols.map((zvol, number) => ({ number, zvol })),
    },
  ],
});

test('no file: the whole rendered configuration', () => {
  expect(mergeCtlConf(null, config('tank/v0'))).toBe(renderCtlConf(config('tank/v0')));
});

test('the host’s own CHAP target and a 15.0 NVMe controller stay byte for byte through three merges', () => {
  let text = HOST_OWN + NVME;
  for (const n of [1, 2, 3]) {
    text = mergeCtlConf(text, config(...['tank/v0', 'tank/v1', 'tank/v2'].slice(0, n)));
    expect(text.startsWith(HOST_OWN + NVME)).toBe(true);
    expect(ctlConfRefusal(text, '15')).toBeNull();
  }
  expect(text.slice((HOST_OWN + NVME).length)).toBe(
    '\nportal-group "pg0" {\n\tdiscovery-auth-group "no-authentication"\n\tlisten "0.0.0.0:3261"\n}\n\n' +
      'target "iqn.2026-01.org.example:disks" {\n\tauth-group "no-authentication"\n\tportal-group "pg0"\n' +
      '\tlun 0 {\n\t\tpath "/dev/zvol/tank/v0"\n\t}\n\tlun 1 {\n\t\tpath "/dev/zvol/tank/v1"\n\t}\n\tlun 2 {\n\t\tpath "/dev/zvol/tank/v2"\n\t}\n}\n',
  );
  // the same configuration again changes nothing
  expect(mergeCtlConf(text, config('tank/v0', 'tank/v1', 'tank/v2'))).toBe(text);
});

test('a statement the agent knows nothing of is kept, never a syntax error', () => {
  const future = 'frobnicate "x" 3\nnew-block "y" {\n\tdeep { nested "z" }\n}\n';
  expect(mergeCtlConf(future, config('tank/v0')).startsWith(future)).toBe(true);
  expect(readStatements(future).map((s) => s.words[0].value)).toEqual(['frobnicate', 'new-block']);
});

test('what cannot be merged safely is refused, naming the statement', () => {
  const ours = renderCtlConf(config('tank/v0'));
  const refuse = (text: string, cfg: IscsiConfig, msg: RegExp) => {
    expect(() => mergeCtlConf(text, cfg)).toThrow(CtlConfConflict);
    expect(() => mergeCtlConf(text, cfg)).toThrow(msg);
  };
  // the host's own target already exports the zvol
  refuse(HOST_OWN, config('tank/host/own0'), /line 11: target "iqn.2012-06.org.example:host-own" already exports \/dev\/zvol\/tank\/host\/own0/);
  // hostmgr's LUN number used for another path in its own target
  refuse(ours.replace('tank/v0', 'tank/other'), config('tank/v0'), /lun 0 of target iqn.2026-01.org.example:disks is not \/dev\/zvol\/tank\/v0/);
  // a target of hostmgr's name with CHAP of its own
  refuse(ours.replace('\tauth-group "no-authentication"\n\tportal-group', '\tchap "u" "secretsecret"\n\tportal-group'), config('tank/v0'), /sets chap itself/);
  // unbalanced braces: not read, left alone
  refuse('target "x" {\n', config('tank/v0'), /cannot be read at line 1: a block is not closed/);
});

test('ctld’s defaults count as written: no portal-group is "default", no auth-group is "default"', () => {
  const text = 'target "iqn.x:y" {\n\tlun 0 {\n\t\tpath "/dev/zvol/tank/a"\n\t}\n}\n';
  const cfg: IscsiConfig = {
    portalGroups: [],
    targets: [
      {
        name: 'iqn.x:y',
        alias: '',
        authGroup: 'default',
        portalGroup: 'default',
        luns: [
          { number: 0, zvol: 'tank/a' },
          { number: 1, zvol: 'tank/b' },
        ],
      },
    ],
  };
  expect(mergeCtlConf(text, cfg)).toBe(text.replace('\t}\n}\n', '\t}\n\tlun 1 {\n\t\tpath "/dev/zvol/tank/b"\n\t}\n}\n'));
});

test('a LUN the host added to hostmgr’s target is kept', () => {
  const ours = renderCtlConf(config('tank/v0')).replace('\t}\n}\n', '\t}\n\tlun 7 {\n\t\tpath "/dev/zvol/tank/admin7"\n\t}\n}\n');
  const merged = mergeCtlConf(ours, config('tank/v0', 'tank/v1'));
  expect(merged).toContain('\tlun 7 {\n\t\tpath "/dev/zvol/tank/admin7"\n\t}\n\tlun 1 {\n\t\tpath "/dev/zvol/tank/v1"\n\t}\n}\n');
});

test('ctld_flags: -u and -f another file are refused with the flags named; getopt "dtuf:R" (ctld.c main)', () => {
  expect(ctldFlagsUnmanaged('')).toBeNull();
  expect(ctldFlagsUnmanaged('-d')).toBeNull();
  expect(ctldFlagsUnmanaged('-f /etc/ctl.conf')).toBeNull();
  expect(ctldFlagsUnmanaged('-u')).toMatch(/^ctld_flags="-u" in \/etc\/rc.conf makes ctld read its configuration as UCL/);
  expect(ctldFlagsUnmanaged('-du')).toMatch(/UCL/);
  expect(ctldFlagsUnmanaged('-f /usr/local/etc/ctl.ucl')).toMatch(/makes ctld read \/usr\/local\/etc\/ctl.ucl \(-f\), not \/etc\/ctl.conf/);
  expect(ctldFlagsUnmanaged('-f/usr/local/etc/x')).toMatch(/read \/usr\/local\/etc\/x/);
});
