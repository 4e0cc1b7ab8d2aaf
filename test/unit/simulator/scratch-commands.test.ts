import { jailHost, simulatedHost } from '../../helpers/simulated-host.ts';

/**
 * The commands the host conformance kit makes its scratch resources with, as FreeBSD and OpenZFS answer them:
 * env(1), truncate(1), zpool create/destroy on file vdevs, zpool replace onto a file, pw groupadd.
 */
const host = () => {
  const h = jailHost();
  return simulatedHost({
    ...h,
    users: [{ name: 'root', uid: 0, gid: 0 }],
    groups: [{ name: 'wheel', gid: 0, members: ['root'] }],
    dirs: ['/var/tmp'],
  } as typeof h);
};

describe('env(1)', () => {
  it('runs the utility through the PATH it sets, and says so when it cannot find one (127)', async () => {
    const h = host();
    expect(await h.run(['env', 'PATH=/sbin:/bin', 'zpool', 'list', '-H', '-o', 'name'])).toEqual({ code: 0, stdout: 'zroot\n', stderr: '' });
    // virsh lives in /usr/local/bin: not on that PATH
    expect(await h.run(['env', 'PATH=/sbin:/bin', 'virsh', 'version'])).toEqual({ code: 127, stdout: '', stderr: 'env: virsh: No such file or directory\n' });
    expect((await h.run(['env', '-i', 'A=b'])).stdout).toBe('A=b\n');
  });
});

describe('truncate(1) and zpool create/destroy on files', () => {
  it('makes a sparse file, a pool on it mounted where -m says, and destroys the pool leaving the file', async () => {
    const h = host();
    expect(await h.run(['truncate', '-s', '128M', '/var/tmp/a', '/var/tmp/small'])).toMatchObject({ code: 0 });
    expect(await h.run(['truncate', '-s', '1k', '/nonexistent/x'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'truncate: /nonexistent/x: No such file or directory\n',
    });
    await h.run(['truncate', '-s', '1M', '/var/tmp/small']);
    expect(await h.run(['zpool', 'create', 'scratch', '/var/tmp/small'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "cannot create 'scratch': one or more devices is less than the minimum size (64M)\n",
    });
    expect(await h.run(['zpool', 'create', 'scratch', '/var/tmp/none'])).toMatchObject({
      code: 1,
      stderr: "cannot resolve path '/var/tmp/none'\n",
    });
    expect(await h.run(['zpool', 'create', '-m', '/var/tmp/mnt', 'scratch', '/var/tmp/a'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await h.run(['zpool', 'create', 'zroot', '/var/tmp/a'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("/var/tmp/a is part of active pool 'scratch'"),
    });
    expect((await h.run(['zpool', 'list', '-Hp', '-o', 'name,health', 'scratch'])).stdout).toBe('scratch\tONLINE\n');
    expect((await h.run(['zfs', 'get', '-H', '-o', 'value', 'mountpoint,mounted', 'scratch'])).stdout).toBe('/var/tmp/mnt\nyes\n');
    expect((await h.run(['zpool', 'status', 'scratch'])).stdout).toMatch(/\t  \/var\/tmp\/a +ONLINE +0 +0 +0/);
    expect(await h.run(['zpool', 'destroy', 'scratch'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await h.run(['zpool', 'destroy', 'scratch'])).toMatchObject({ code: 1, stderr: "cannot open 'scratch': no such pool\n" });
    expect((await h.run(['zfs', 'list', '-H', '-o', 'name'])).stdout).not.toMatch(/scratch/);
    expect((await h.run(['ls', '/var/tmp'])).stdout).toMatch(/^a$/m);
  });

  it('replaces a file vdev by another file, resilvering', async () => {
    const h = host();
    await h.run(['truncate', '-s', '128M', '/var/tmp/a', '/var/tmp/b']);
    await h.run(['zpool', 'create', 'scratch', '/var/tmp/a']);
    expect(await h.run(['zpool', 'replace', 'scratch', '/var/tmp/a', '/var/tmp/missing'])).toMatchObject({
      code: 1,
      stderr: "cannot resolve path '/var/tmp/missing'\n",
    });
    expect(await h.run(['zpool', 'replace', 'scratch', '/var/tmp/a', '/var/tmp/b'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await h.run(['zpool', 'status', 'scratch'])).stdout).toMatch(
      /replacing-0[\s\S]*\/var\/tmp\/a[\s\S]*\/var\/tmp\/b +ONLINE +0 +0 +0 +\(resilvering\)/,
    );
  });
});

describe('pw groupadd', () => {
  it('adds a group with the lowest free gid from 1000, refuses a name or gid taken and unknown members', async () => {
    const h = host();
    expect(await h.run(['pw', 'groupadd', '-n', 'hm-check-x', '-M', 'root'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await h.run(['pw', 'groupshow', 'hm-check-x'])).stdout).toBe('hm-check-x:*:1000:root\n');
    expect(await h.run(['pw', 'groupadd', 'hm-check-x'])).toEqual({ code: 65, stdout: '', stderr: "pw: group name `hm-check-x' already exists\n" });
    expect(await h.run(['pw', 'groupadd', 'other', '-g', '0'])).toEqual({ code: 65, stdout: '', stderr: "pw: gid `0' has already been allocated\n" });
    expect(await h.run(['pw', 'groupadd', 'other', '-M', 'nobody'])).toEqual({ code: 67, stdout: '', stderr: "pw: user `nobody' does not exist\n" });
    await h.run(['pw', 'groupadd', 'second']);
    expect((await h.run(['pw', 'groupshow', 'second'])).stdout).toBe('second:*:1001:\n');
  });
});

describe('cp(1) (bin/cp/cp.c, utils.c copy_file)', () => {
  it('copies a file to a path or into a directory with its mode less the umask; a missing source fails', async () => {
    const h = host();
    await h.simulator.state((s) => void (s.files = { ...s.files, '/rescue/sh': { content: 'ELF\n', mode: '555' } }));
    expect(await h.run(['cp', '/rescue/sh', '/var/tmp/sh'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await h.run(['mkdir', '/var/tmp/bin'])).toMatchObject({ code: 0 });
    expect(await h.run(['cp', '/rescue/sh', '/var/tmp/bin'])).toMatchObject({ code: 0 });
    expect(await h.simulator.state((s) => [s.files!['/var/tmp/sh'], s.files!['/var/tmp/bin/sh']])).toEqual([
      { content: 'ELF\n', mode: '555' },
      { content: 'ELF\n', mode: '555' },
    ]);
    expect(await h.run(['cp', '/rescue/nope', '/var/tmp/x'])).toEqual({ code: 1, stdout: '', stderr: 'cp: /rescue/nope: No such file or directory\n' });
  });
});

describe('what the kernel and libvirt keep of what the kit removes', () => {
  it('jail -r: a jail the kernel learned of at jail -c leaves no record (a non-persist jail is gone once removed)', async () => {
    const h = host();
    const conf = ['# hostmgr: ctid=9999', 'hm-check-x {', '\texec.start = "/bin/sh /etc/rc";', '\tpath = "/var/tmp/hm-check-x-jail";', '}', ''].join('\n');
    await h.run(['mkdir', '-p', '/etc/jail.conf.d', '/var/tmp/hm-check-x-jail']);
    await h.run(['tee', '/etc/jail.conf.d/hm-check-x.conf'], { stdin: conf });
    const before = await h.simulator.state((s) => JSON.stringify((s as { jails?: unknown[] }).jails));
    expect(await h.run(['jail', '-f', '/etc/jail.conf.d/hm-check-x.conf', '-c', 'hm-check-x'])).toMatchObject({ code: 0, stdout: 'hm-check-x: created\n' });
    expect((await h.run(['jls', '-N'])).stdout).toMatch(/hm-check-x/);
    expect(await h.run(['jail', '-f', '/etc/jail.conf.d/hm-check-x.conf', '-r', 'hm-check-x'])).toMatchObject({ code: 0, stdout: 'hm-check-x: removed\n' });
    expect(await h.simulator.state((s) => JSON.stringify((s as { jails?: unknown[] }).jails))).toBe(before);
  });

  it('virsh undefine of a shut-off domain removes it entirely; a running one goes when it is destroyed', async () => {
    const h = host();
    const xml = (uuid: string) =>
      `<domain type='bhyve'><name>9999</name><uuid>${uuid}</uuid><memory unit='KiB'>262144</memory><vcpu>1</vcpu><os><type>hvm</type></os></domain>\n`;
    const vms = () => h.simulator.state((s) => JSON.stringify((s as { vms?: unknown[] }).vms ?? []));
    const before = await vms();
    await h.run(['tee', '/var/tmp/d.xml'], { stdin: xml('0f0e0d0c-0b0a-4999-8888-777766665555') });
    expect(await h.run(['virsh', '-c', 'bhyve:///system', 'define', '/var/tmp/d.xml'])).toMatchObject({ code: 0 });
    expect(await h.run(['virsh', '-c', 'bhyve:///system', 'undefine', '9999'])).toMatchObject({ code: 0, stdout: "Domain '9999' has been undefined\n\n" });
    expect(await vms()).toBe(before);
    await h.run(['virsh', '-c', 'bhyve:///system', 'define', '/var/tmp/d.xml']);
    expect(await h.run(['virsh', '-c', 'bhyve:///system', 'start', '9999'])).toMatchObject({ code: 0 });
    await h.run(['virsh', '-c', 'bhyve:///system', 'undefine', '9999']);
    expect((await h.run(['virsh', '-c', 'bhyve:///system', 'list', '--all', '--name'])).stdout).toContain('9999');
    expect(await h.run(['virsh', '-c', 'bhyve:///system', 'destroy', '9999'])).toMatchObject({ code: 0 });
    expect(await vms()).toBe(before);
  });
});

describe('pwd_mkdb(8) (usr.sbin/pwd_mkdb/pwd_mkdb.c)', () => {
  it('builds pwd.db (no hashes, 0644) and spwd.db (0600) into -d dir; a short line is a corrupted entry', async () => {
    const h = host();
    await h.run(['mkdir', '-p', '/var/tmp/j/etc']);
    await h.run(['tee', '/var/tmp/j/etc/master.passwd'], { stdin: 'root:$6$x:0:0::0:0:Charlie &:/root:/bin/sh\n' });
    expect(await h.run(['pwd_mkdb', '-d', '/var/tmp/j/etc', '/var/tmp/j/etc/master.passwd'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await h.simulator.state((s) => [s.files!['/var/tmp/j/etc/pwd.db'], s.files!['/var/tmp/j/etc/spwd.db'].mode])).toEqual([
      { content: 'root:*:0:0::0:0:Charlie &:/root:/bin/sh\n', mode: '644' },
      '600',
    ]);
    await h.run(['tee', '/var/tmp/j/etc/bad'], { stdin: 'root:*:0:0\n' });
    expect(await h.run(['pwd_mkdb', '-d', '/var/tmp/j/etc', '/var/tmp/j/etc/bad'])).toMatchObject({
      code: 1,
      stderr: 'pwd_mkdb: corrupted entry\npwd_mkdb: at line #1\n',
    });
  });
});

describe('zfs create -V (cmd/zfs/zfs_main.c zfs_do_create, libzfs_dataset.c zfs_create)', () => {
  it('makes a volume reserving volsize and its metadata, rounded to the 16K volblocksize; refuses as zfs does', async () => {
    const h = host();
    await h.run(['truncate', '-s', '128M', '/var/tmp/v0']);
    await h.run(['zpool', 'create', 'scratch', '/var/tmp/v0']);
    expect(await h.run(['zfs', 'create', '-V', '16M', 'scratch/vol'])).toEqual({ code: 0, stdout: '', stderr: '' });
    // its device node, as devfs shows it
    expect(await h.run(['ls', '/dev/zvol/scratch/vol'])).toEqual({ code: 0, stdout: '/dev/zvol/scratch/vol\n', stderr: '' });
    // refreservation: 16M + (7 + 1) metadata blocks × 2 copies × 128K (zvol_volsize_to_reservation)
    expect(await h.run(['zfs', 'list', '-Hp', '-o', 'name,type,used,volsize', 'scratch/vol'])).toMatchObject({
      stdout: `scratch/vol\tvolume\t${16 * 2 ** 20 + 16 * 131072}\t${16 * 2 ** 20}\n`,
    });
    await h.run(['zfs', 'create', '-s', '-V', '10000', 'scratch/odd']);
    expect((await h.run(['zfs', 'get', '-Hp', '-o', 'value', 'volsize', 'scratch/odd'])).stdout).toBe('16384\n');
    expect(await h.run(['zfs', 'create', '-V', '16M', 'scratch/vol'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "cannot create 'scratch/vol': dataset already exists\n",
    });
    expect(await h.run(['zfs', 'create', '-V', '16M', 'scratch/no/vol'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "cannot create 'scratch/no/vol': parent does not exist\n",
    });
    // -p would create scratch/no, a filesystem: not simulated, and said as a simulator fault rather than answered
    expect(await h.run(['zfs', 'create', '-p', '-V', '16M', 'scratch/no/vol'])).toMatchObject({ code: 70, stderr: expect.stringContaining('not simulated') });
    expect(await h.run(['zfs', 'create', '-V', '16M', 'nopool/vol'])).toEqual({ code: 1, stdout: '', stderr: "cannot open 'nopool': no such pool\n" });
    expect(await h.run(['zfs', 'create', '-V', '1G', 'scratch/big'])).toEqual({ code: 1, stdout: '', stderr: "cannot create 'scratch/big': out of space\n" });
    expect(await h.run(['zfs', 'create', '-V', '12Q', 'scratch/bad'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "bad volume size '12Q': invalid numeric suffix 'Q'\n",
    });
    expect(await h.run(['zfs', 'create', '-V', '0', 'scratch/zero'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "cannot create 'scratch/zero': volume size cannot be zero\n",
    });
    expect(await h.run(['zfs', 'destroy', 'scratch/vol'])).toMatchObject({ code: 0 });
    expect(await h.run(['ls', '/dev/zvol/scratch/vol'])).toMatchObject({ code: 1, stderr: 'ls: /dev/zvol/scratch/vol: No such file or directory\n' });
    expect((await h.run(['zfs', 'list', '-H', '-o', 'name', '-r', 'scratch'])).stdout).toBe('scratch\nscratch/odd\n');
  });
});
