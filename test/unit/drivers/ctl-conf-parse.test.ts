import { checkCtlConf, CtlConfError } from '#agent/drivers/ctl-conf-check';
import { renderCtlConf } from '#agent/drivers/ctl-conf';
import { ctlConfModel, parseCtlConf, printCtlConf } from '#agent/drivers/ctl-conf-parse';

/** A ctl.conf as an administrator writes one (ctl.conf(5)'s examples): comments, quotes, bare words, `;`, nesting. */
const HAND_WRITTEN = `# iSCSI targets of this host
pidfile /var/run/ctld.pid
debug 1 ; timeout 30

auth-group ag0 {
	chap "agent" "secret with spaces"   # quoted: one string each
	initiator-portal 192.0.2.0/24
}

portal-group pg0 {
	discovery-auth-group no-authentication
	listen 0.0.0.0:3260
	listen "[::]:3260"
	dscp af11
	option foo bar
}

lun example_1 {
	path /dev/zvol/tank/named
	size 4G
}

target iqn.2012-06.com.example:target0 {
	alias "Example target"
	auth-group ag0
	portal-group pg0
	lun 0 {
		path /dev/zvol/tank/example_0
		blocksize 4096
		option "pblocksize" 0
	}
	lun 1 example_1
}
`;

/** One the iscsi.apply-config model holds whole: no auth-group block, LUNs on zvols only. */
const MODEL_SHAPED = `# two targets, one on the default portal group
portal-group pg0 { discovery-auth-group no-authentication; listen 127.0.0.1:3260 }
target iqn.2026-01.net.example:db {
	alias "db disks"; auth-group no-authentication; portal-group pg0
	lun 0 { path "/dev/zvol/tank/iscsi/db 0" }
	lun 3 { path /dev/zvol/tank/iscsi/db3 }
}
target "iqn.2026-01.net.example:scratch" {
	lun 0 { path /dev/zvol/tank/iscsi/s0 }
}
`;

describe('ctl.conf read into statements (parse.y’s statement shapes, token.l’s lexer)', () => {
  test('statements, arguments and blocks of a hand-written file; comments and `;` are not statements', () => {
    const s = parseCtlConf(HAND_WRITTEN);
    expect(s.map((x) => x.keyword)).toEqual(['pidfile', 'debug', 'timeout', 'auth-group', 'portal-group', 'lun', 'target']);
    expect(s[3]).toEqual({
      keyword: 'auth-group',
      args: ['ag0'],
      block: [
        { keyword: 'chap', args: ['agent', 'secret with spaces'] },
        { keyword: 'initiator-portal', args: ['192.0.2.0/24'] },
      ],
    });
    expect(s[4].block).toContainEqual({ keyword: 'dscp', args: ['af11'] });
    expect(s[6].block).toEqual([
      { keyword: 'alias', args: ['Example target'] },
      { keyword: 'auth-group', args: ['ag0'] },
      { keyword: 'portal-group', args: ['pg0'] },
      {
        keyword: 'lun',
        args: ['0'],
        block: [
          { keyword: 'path', args: ['/dev/zvol/tank/example_0'] },
          { keyword: 'blocksize', args: ['4096'] },
          { keyword: 'option', args: ['pblocksize', '0'] },
        ],
      },
      { keyword: 'lun', args: ['1', 'example_1'] },
    ]);
  });

  test('round trip: printed statements read back to the same statements, and ctld reads the same configuration', () => {
    for (const text of [HAND_WRITTEN, MODEL_SHAPED]) {
      const printed = printCtlConf(parseCtlConf(text));
      expect(parseCtlConf(printed)).toEqual(parseCtlConf(text));
      expect(checkCtlConf(printed)).toEqual(checkCtlConf(text));
    }
  });

  test('a file ctld refuses is refused with ctld’s message', () => {
    expect(() => parseCtlConf('target iqn.x:y {\n\tportal-group nosuch\n}\n')).toThrow(new CtlConfError('unknown portal-group "nosuch" for target "iqn.x:y"'));
  });
});

describe('ctl.conf in the iscsi.apply-config model', () => {
  test('a file the model holds: ctld’s defaults made explicit, and the rendered model is the same configuration to ctld', () => {
    const r = ctlConfModel(parseCtlConf(MODEL_SHAPED));
    if (!('config' in r)) throw new Error(r.unfit);
    expect(r.config).toEqual({
      portalGroups: [{ name: 'pg0', discoveryAuthGroup: 'no-authentication', listen: ['127.0.0.1:3260'] }],
      targets: [
        {
          name: 'iqn.2026-01.net.example:db',
          alias: 'db disks',
          authGroup: 'no-authentication',
          portalGroup: 'pg0',
          luns: [
            { number: 0, zvol: 'tank/iscsi/db 0' },
            { number: 3, zvol: 'tank/iscsi/db3' },
          ],
        },
        { name: 'iqn.2026-01.net.example:scratch', alias: '', authGroup: 'default', portalGroup: 'default', luns: [{ number: 0, zvol: 'tank/iscsi/s0' }] },
      ],
    });
    const rendered = checkCtlConf(renderCtlConf(r.config));
    expect(rendered.targets).toEqual(checkCtlConf(MODEL_SHAPED).targets);
  });

  test('what the model has no place for is named, never dropped', () => {
    const unfit = (text: string) => {
      const r = ctlConfModel(parseCtlConf(text));
      return 'unfit' in r ? r.unfit : null;
    };
    expect(unfit(HAND_WRITTEN)).toBe('debug 1');
    expect(unfit('auth-group ag0 {\n\tchap a bbbbbbbbbbbb\n}\n')).toBe('auth-group ag0');
    expect(unfit('target iqn.x:y {\n\tlun 0 {\n\t\tpath /var/img/disk0\n\t}\n}\n')).toBe('lun 0 of target "iqn.x:y" (only a path on a zvol fits)');
    expect(unfit('target iqn.x:y {\n\tlun 0 {\n\t\tpath /dev/zvol/a\n\t\toption foo bar\n\t}\n}\n')).toBe(
      'lun 0 of target "iqn.x:y" (only a path on a zvol fits)',
    );
    expect(unfit('pidfile /var/run/other.pid\n')).toBe('pidfile /var/run/other.pid');
    expect(unfit('portal-group pg0 {\n\tlisten 0.0.0.0\n\toffload cxgbei\n}\n')).toBe('offload in portal-group "pg0"');
  });
});
