import { CommandError, runChecked } from '#agent/executors/executor';
import { getSysctl, getSysctls, listTunables, parseSysctlLines, parseSysctlSet, parseSysctlTypes, setSysctl } from '#agent/drivers/sysctl';
import { demoHost, fixture, host, simulate } from '../simulator/sim-helper.ts';

const message = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e) => (e instanceof CommandError ? `${e.result.code}:${e.message}` : `not a CommandError: ${e}`),
  );

describe('sysctl parsers (verbatim samples)', () => {
  it('reads name: value lines, values with spaces and braces included', () => {
    const lines = parseSysctlLines(fixture('sysctl-hw-ncpu-and-more-freebsd14.txt'));
    expect(lines.map((l) => l.name)).toEqual([
      'hw.ncpu',
      'hw.physmem',
      'hw.pagesize',
      'hw.model',
      'kern.cp_time',
      'kern.cp_times',
      'kern.boottime',
      'vm.loadavg',
    ]);
    expect(lines[3].value).toBe('Intel(R) Atom(TM) CPU D525   @ 1.80GHz');
    expect(lines[6].value).toBe('{ sec = 1790798684, usec = 725700 } Wed Sep 30 16:04:44 2026');
    expect(parseSysctlLines(fixture('sysctl-kern-ostype.txt'))).toEqual([{ name: 'kern.ostype', value: 'FreeBSD' }]);
  });

  it('reads types and descriptions (-t, -t -d) and a set', () => {
    expect(parseSysctlTypes(fixture('sysctl-t-kern-ostype.txt'))).toEqual([{ name: 'kern.ostype', type: 'string', description: '' }]);
    expect(parseSysctlTypes(fixture('sysctl-t-d-kern-ostype.txt'))).toEqual([{ name: 'kern.ostype', type: 'string', description: 'Operating system type' }]);
    expect(parseSysctlSet(fixture('sysctl-set-success.txt'))).toEqual([{ name: 'dev.cpu.0.freq', old: '800', new: '2501' }]);
  });
});

describe('simulated sysctl prints what FreeBSD prints', () => {
  const ostype = () =>
    simulate(
      host({
        sysctls: [
          { name: 'kern.ostype', type: 'string', value: 'FreeBSD', writable: false, description: 'Operating system type' },
          { name: 'dev.cpu.0.freq', type: 'integer', value: '800', writable: true, description: 'Current CPU frequency' },
          { name: 'dev.ix.0.iflib.simple_tx', type: 'integer', value: '0', writable: false, tunable: true, description: 'use simple tx ring' },
          { name: 'hw.pagesize', type: 'integer', value: '4096', writable: false },
          { name: 'hw.model', type: 'string', value: 'Intel(R) Atom(TM) CPU D525   @ 1.80GHz', writable: false },
        ],
      }),
    );

  it.each([
    [['kern.ostype'], 'sysctl-kern-ostype.txt'],
    [['-n', 'kern.ostype'], 'sysctl-n-kern-ostype.txt'],
    [['-e', 'kern.ostype'], 'sysctl-e-kern-ostype.txt'],
    [['-t', 'kern.ostype'], 'sysctl-t-kern-ostype.txt'],
    [['-d', 'kern.ostype'], 'sysctl-d-kern-ostype.txt'],
    [['-t', '-d', 'kern.ostype'], 'sysctl-t-d-kern-ostype.txt'],
    [['-n', '-t', '-d', 'kern.ostype'], 'sysctl-n-t-d-kern-ostype.txt'],
  ])('sysctl %j = %s byte for byte', async (args, file) => {
    const res = await ostype().exec.run(['sysctl', ...args]);
    expect(res).toEqual({ code: 0, stdout: fixture(file), stderr: '' });
  });

  it('sets, and refuses as sysctl(8) does (fixtures)', async () => {
    const h = ostype();
    expect(await h.exec.run(['sysctl', 'dev.cpu.0.freq=2501'])).toEqual({ code: 0, stdout: fixture('sysctl-set-success.txt'), stderr: '' });
    expect(await h.exec.run(['sysctl', 'dev.cpu.0.freq=2501/35000'])).toEqual({ code: 1, stdout: '', stderr: fixture('sysctl-set-invalid-integer-error.txt') });
    expect(await h.exec.run(['sysctl', 'dev.ix.0.iflib.simple_tx=1'])).toEqual({
      code: 1,
      stdout: '',
      stderr: fixture('sysctl-set-readonly-tunable-error.txt'),
    });
    expect((await h.exec.run(['sysctl', 'hw.ncpu', 'hw.physmem', 'hw.pagesize', 'hw.model'])).stdout).toBe(
      fixture('sysctl-hw-ncpu-and-more-freebsd14.txt').split('\n').slice(0, 4).join('\n') + '\n',
    );
  });

  it('reports unknown OIDs one per line, like a host without ZFS', async () => {
    const res = await ostype().exec.run(['sysctl', 'kstat.zfs.misc.arcstats.size', 'kstat.zfs.misc.arcstats.c_min', 'vfs.zfs.arc_max']);
    expect(res).toEqual({ code: 1, stdout: '', stderr: fixture('sysctl-unknown-oid-error.txt') });
  });
});

describe('sysctl driver against the simulator', () => {
  it('gets typed values and several at once', async () => {
    const h = simulate(demoHost());
    expect(await getSysctl(h.exec, 'kern.maxfiles')).toEqual({ name: 'kern.maxfiles', type: 'integer', value: '1037802', number: 1037802 });
    expect(await getSysctl(h.exec, 'kern.ostype')).toEqual({ name: 'kern.ostype', type: 'string', value: 'FreeBSD', number: null });
    const many = await getSysctls(h.exec, ['hw.ncpu', 'hw.physmem', 'no.such.oid']);
    expect([...many]).toEqual([
      ['hw.ncpu', '8'],
      ['hw.physmem', '34259939328'],
    ]);
    expect(await message(getSysctl(h.exec, 'no.such.oid'))).toBe("1:sysctl: unknown oid 'no.such.oid'");
  });

  it("sets and persists a value; errors carry sysctl's message", async () => {
    const h = simulate(demoHost());
    expect(await setSysctl(h.exec, 'kern.maxfiles', '2000000')).toEqual({ name: 'kern.maxfiles', old: '1037802', new: '2000000' });
    expect((await getSysctl(h.exec, 'kern.maxfiles')).number).toBe(2000000);
    expect(await setSysctl(h.exec, 'net.inet.ip.forwarding', '1')).toEqual({ name: 'net.inet.ip.forwarding', old: '0', new: '1' });
    expect(await message(setSysctl(h.exec, 'kern.maxfiles', '12abc'))).toBe("1:sysctl: invalid integer '12abc'");
    expect(await message(setSysctl(h.exec, 'kern.hz', '100'))).toBe(
      "1:sysctl: oid 'kern.hz' is a read only tunable\nsysctl: Tunable values are set in /boot/loader.conf",
    );
    expect(await message(setSysctl(h.exec, 'kern.ostype', 'Linux'))).toBe("1:sysctl: oid 'kern.ostype' is read only");
    expect(await message(setSysctl(h.exec, 'kern.ipc.soacceptqueue', '70000'))).toBe('1:sysctl: kern.ipc.soacceptqueue=70000: Invalid argument');
    // a string OID, and the host's name follows it
    expect(await setSysctl(h.exec, 'kern.hostname', 'renamed.example.net')).toMatchObject({ new: 'renamed.example.net' });
    expect((await runChecked(h.exec, ['sysctl', '-n', 'kern.hostname'])).trim()).toBe('renamed.example.net');
  });

  it('parses values as sysctl(8) does: hex and octal, C casts, unsigned wrap', async () => {
    const h = simulate(
      host({
        sysctls: [
          { name: 'test.int', type: 'integer', value: '0', writable: true },
          { name: 'test.uint', type: 'unsigned integer', value: '0', writable: true },
          { name: 'test.u64', type: 'uint64_t', value: '0', writable: true },
        ],
      }),
    );
    expect((await setSysctl(h.exec, 'test.int', '0x10')).new).toBe('16');
    expect((await setSysctl(h.exec, 'test.int', '010')).new).toBe('8');
    expect((await setSysctl(h.exec, 'test.int', '-5')).new).toBe('-5');
    // (int)strtol: a value past 32 bits wraps, as in C
    expect((await setSysctl(h.exec, 'test.int', '4294967297')).new).toBe('1');
    expect((await setSysctl(h.exec, 'test.uint', '-1')).new).toBe('4294967295');
    expect((await setSysctl(h.exec, 'test.u64', '18446744073709551615')).new).toBe('18446744073709551615');
    expect(await message(setSysctl(h.exec, 'test.u64', '18446744073709551616'))).toBe("1:sysctl: invalid uint64_t '18446744073709551616'");
    expect(await message(setSysctl(h.exec, 'test.int', ''))).toBe("1:sysctl: invalid integer ''");
  });

  it('lists tunables: writable ones, read-only loader tunables and core read-only OIDs, with types', async () => {
    const h = simulate(demoHost());
    const list = await listTunables(h.exec);
    const by = new Map(list.map((t) => [t.name, t]));
    expect(by.get('kern.maxfiles')).toEqual({
      name: 'kern.maxfiles',
      type: 'integer',
      value: '1037802',
      writable: true,
      description: 'Maximum number of files',
    });
    expect(by.get('vfs.zfs.arc_max')).toMatchObject({ type: 'unsigned long', value: '0', writable: true });
    expect(by.get('net.inet.ip.forwarding')).toMatchObject({ type: 'integer', writable: true });
    expect(by.get('kern.hz')).toMatchObject({ type: 'integer', writable: false });
    expect(by.get('kern.ostype')).toMatchObject({ type: 'string', value: 'FreeBSD', writable: false });
    expect(by.get('hw.ncpu')).toMatchObject({ type: 'integer', value: '8', writable: false });
    expect(by.get('kern.hostname')).toMatchObject({ type: 'string', writable: true });
    // statistics are not tunables
    expect([...by.keys()].some((n) => n.startsWith('kstat.'))).toBe(false);
    expect(list.map((t) => t.name)).toEqual([...list.map((t) => t.name)].sort());
  });
});
