import { ValidationError } from '#shared/errors/domain-errors';
import { checkCloudInit } from '#domain/vms/cloud-init-rules';
import { checkVnc, isIpLiteral, parseResolution } from '#domain/vms/vnc-rules';
import { VNC_PORT } from '#shared/agent-api/vm-rules';

const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e.fields.map((f) => f.field);
    throw e;
  }
  return [];
};

describe('E17 cloud-init rules', () => {
  test('both empty clears; whitespace counts as empty', () => {
    expect(checkCloudInit({ data: '', metadata: ' \n', networkConfig: '' })).toEqual({ data: '', metadata: '', networkConfig: '' });
  });
  test('both set, valid YAML, network-config optional', () => {
    const c = { data: '#cloud-config\nusers:\n  - name: ops\n', metadata: 'instance-id: vm-7\nlocal-hostname: vm7\n', networkConfig: '' };
    expect(checkCloudInit(c)).toEqual(c);
  });
  test('one without the other names the missing field', () => {
    expect(fieldsOf(() => checkCloudInit({ data: 'a: 1', metadata: '', networkConfig: '' }))).toEqual(['body.metadata']);
    expect(fieldsOf(() => checkCloudInit({ data: '', metadata: 'a: 1', networkConfig: '' }))).toEqual(['body.data']);
    expect(fieldsOf(() => checkCloudInit({ data: '', metadata: '', networkConfig: 'version: 2' }))).toEqual(['body.networkConfig']);
  });
  test('invalid YAML is reported per field, all at once', () => {
    const bad = 'key: [unclosed\n';
    expect(fieldsOf(() => checkCloudInit({ data: bad, metadata: bad, networkConfig: 'a: b: c' }))).toEqual([
      'body.data',
      'body.metadata',
      'body.networkConfig',
    ]);
    try {
      checkCloudInit({ data: 'a: 1', metadata: 'x:\n\t- y', networkConfig: '' });
      throw new Error('expected a ValidationError');
    } catch (e) {
      expect((e as ValidationError).detail).toMatch(/^body\.metadata: must be valid YAML/);
    }
  });
});

describe('E19 VNC rules', () => {
  const base = { vncEnabled: true, vncResolution: '1920x1080', vncWait: false };
  test('defaults the bind address to 127.0.0.1', () => {
    expect(checkVnc(base)).toEqual({ bind: '127.0.0.1' });
    expect(checkVnc({ ...base, vncBind: '::' })).toEqual({ bind: '::' });
  });
  test('bind must be an IP literal', () => {
    expect(isIpLiteral('192.0.2.1')).toBe(true);
    expect(isIpLiteral('fe80::1')).toBe(true);
    for (const bad of ['localhost', '127.1', '999.1.1.1', '', '[::1]']) expect(isIpLiteral(bad)).toBe(false);
    expect(fieldsOf(() => checkVnc({ ...base, vncBind: 'localhost' }))).toEqual(['body.vncBind']);
  });
  test('resolution form and bounds (640–3840 × 480–2160)', () => {
    expect(parseResolution('800x600')).toEqual({ width: 800, height: 600 });
    expect(parseResolution('800X600')).toBeNull();
    for (const ok of ['640x480', '3840x2160']) expect(fieldsOf(() => checkVnc({ ...base, vncResolution: ok }))).toEqual([]);
    for (const bad of ['639x480', '640x479', '3841x2160', '3840x2161', '1920', 'x', '1920x1080x2']) {
      expect(fieldsOf(() => checkVnc({ ...base, vncResolution: bad }))).toContain('body.vncResolution');
    }
  });
  test('password without commas; empty is allowed', () => {
    expect(fieldsOf(() => checkVnc({ ...base, vncPassword: 'a,b' }))).toEqual(['body.vncPassword']);
    expect(fieldsOf(() => checkVnc({ ...base, vncPassword: '' }))).toEqual([]);
  });
  test('wait is a setting like the others (bhyve fbuf `wait`, passed through by the agent)', () => {
    expect(fieldsOf(() => checkVnc({ ...base, vncWait: true }))).toEqual([]);
    expect(fieldsOf(() => checkVnc({ ...base, vncEnabled: false, vncWait: true }))).toEqual([]);
  });
  test("the port bounds are libvirt's bhyve driver's: 5900–65535", () => {
    expect(VNC_PORT).toEqual({ min: 5900, max: 65535 });
  });
  test('every failing field at once', () => {
    expect(fieldsOf(() => checkVnc({ ...base, vncBind: 'x', vncResolution: '1x1', vncPassword: ',' }))).toEqual([
      'body.vncBind',
      'body.vncResolution',
      'body.vncResolution',
      'body.vncPassword',
    ]);
  });
});
