import { fixture } from './sim-helper.ts';
import { ctlConfRefusal, readCtlConf } from '#simulator/commands/ctl-conf-reader';
import { ctldRejection } from '#agent/drivers/ctl-conf-check';
import { PROFILES } from '#simulator/profiles';

/**
 * The simulated ctld's own reading of ctl.conf (simulator/commands/ctl-conf-reader.ts, from freebsd-src
 * usr.sbin/ctld token.l and parse.y; 15.0's NVMe-oF statements from conf.h and ctl.conf.5). Where it and the agent's
 * fallback checker (agent/drivers/ctl-conf-check.ts) disagree, the source decides and the test says which line.
 */
const refusal = (msg: string) => `ctld: ${msg}\nctld: configuration error; exiting\n`;

const NVME = [
  'transport-group "tg0" {',
  '\tlisten tcp 0.0.0.0:4420',
  '\tlisten discovery-tcp 0.0.0.0:8009',
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

describe("the simulator's ctl.conf grammar", () => {
  test("reads the man page's example as ctld does, on both grammars", () => {
    for (const g of ['14', '15'] as const) {
      const r = readCtlConf(fixture('ctl-conf-example.txt'), g);
      expect(r.portalGroups).toEqual(['example2']);
      expect(r.targets.map((t) => [t.name, t.portalGroups, t.luns.map((l) => `${l.number}:${l.path}`)])).toEqual([
        ['iqn.2012-06.com.example:target0', ['default'], ['0:/dev/zvol/example_0']],
        ['iqn.2012-06.com.example:target3', ['default'], ['0:/dev/zvol/example_3']],
        ['iqn.2012-06.com.example:target2', ['example2'], ['0:/dev/zvol/example2_0', '1:/dev/zvol/example2_1']],
      ]);
    }
  });

  test('each host profile names its grammar', () => {
    expect(PROFILES['freebsd-14.3'].ctlConfGrammar).toBe('14');
    expect(PROFILES['freebsd-15.0'].ctlConfGrammar).toBe('15');
  });

  test('15.0 reads transport-group and controller blocks (conf.h transport_group_*, controller_*); 14.x refuses them', () => {
    const r = readCtlConf(NVME, '15');
    expect(r.controllers).toEqual([{ name: 'nqn.2012-06.org.example:nvme0', namespaces: [{ number: 1, path: '/dev/zvol/tank/nvme/ns1' }] }]);
    // token.l of 14.x has no `transport-group` rule: the bare-word rule makes it a STR, and parse.y's `statement`
    // has no alternative that starts with STR
    expect(ctlConfRefusal(NVME, '14')).toBe(refusal("error in configuration file at line 1 near 'transport-group': syntax error"));
    // a controller naming a transport group that does not exist (controller's transport-group lookup)
    expect(ctlConfRefusal('controller "c" {\n\ttransport-group "nosuch"\n}\n', '15')).toBe(refusal('unknown transport-group "nosuch" for controller "c"'));
    // host-nqn is an auth-group entry in 15.0 only (auth_group_add_host_nqn)
    expect(ctlConfRefusal('auth-group "ag" {\n\thost-nqn "nqn.x"\n}\n', '15')).toBeNull();
    expect(ctlConfRefusal('auth-group "ag" {\n\thost-nqn "nqn.x"\n}\n', '14')).toBe(
      refusal("error in configuration file at line 2 near 'host-nqn': syntax error"),
    );
  });

  test('the agent’s fallback checker disagrees on 15.0 files; the source (15.0 conf.h) sides with the simulator', () => {
    // the agent's checker knows only the 14.x grammar: on 15.0 it refuses what ctld accepts. The agent uses it
    // only where ctld has no -t (before 13.0), never on 15.0, so E13 does not rely on it there.
    expect(ctldRejection(NVME)).toMatch(/syntax error/);
    expect(ctlConfRefusal(NVME, '15')).toBeNull();
  });

  test('keyword names unquoted are syntax errors (token.l: keyword rules before the bare-word rule); quoted they are names', () => {
    for (const g of ['14', '15'] as const) {
      for (const name of ['port', 'size', 'tag', 'be', 'cs0', 'foreign']) {
        expect(ctlConfRefusal(`portal-group ${name} {\n\tlisten 0.0.0.0\n}\n`, g)).toBe(
          refusal(`error in configuration file at line 1 near '${name}': syntax error`),
        );
        expect(ctlConfRefusal(`portal-group "${name}" {\n\tlisten 0.0.0.0\n}\n`, g)).toBeNull();
      }
    }
    // `namespace` and `controller` are names on 14.x, keywords on 15.0
    expect(ctlConfRefusal('portal-group namespace {\n\tlisten 0.0.0.0\n}\n', '14')).toBeNull();
    expect(ctlConfRefusal('portal-group namespace {\n\tlisten 0.0.0.0\n}\n', '15')).toMatch(/near 'namespace': syntax error/);
  });

  test('parse.y refusals with ctld’s messages, as the agent’s checker gives them on 14.x', () => {
    const cases: Array<[string, string]> = [
      ['target iqn.x:y {\n\tportal-group nosuch\n}\n', 'unknown portal-group "nosuch" for target "iqn.x:y"'],
      ['target iqn.x:y {\n\tauth-group nosuch\n}\n', 'unknown auth-group "nosuch" for target "iqn.x:y"'],
      ['target iqn.x:y {\n\tchap a b\n\tauth-group default\n}\n', 'cannot use both auth-group and explicit authorisations for target "iqn.x:y"'],
      ['target iqn.x:y {\n\tlun 0 {\n\t}\n}\n', 'missing path for lun "iqn.x:y,lun,0"'],
      ['target iqn.x:y {\n\tlun 0 {\n\t\tpath /a\n\t\tpath /b\n\t}\n}\n', 'path for lun "iqn.x:y,lun,0" specified more than once'],
      ['target iqn.x:y {\n\tlun 1024 {\n\t\tpath /a\n\t}\n}\n', "error in configuration file at line 2 near '{': LU number is too big"],
      ['portal-group pg {\n\tlisten 192.0.2.300\n}\n', 'invalid listen address 192.0.2.300'],
      ['pidfile /a\npidfile /b\n', 'pidfile specified more than once'],
      ['target iqn.x:y {\n}\ntarget IQN.X:Y {\n}\n', 'duplicated target "IQN.X:Y"'],
    ];
    for (const [text, msg] of cases) {
      expect(ctlConfRefusal(text, '14')).toBe(refusal(msg));
      expect(ctldRejection(text)).toBe(refusal(msg));
    }
  });
});
