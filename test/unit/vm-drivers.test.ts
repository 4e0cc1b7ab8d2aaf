import { DomainXml, find, is, attrsOf, childrenOf } from '#agent/drivers/domain-xml';
import { bootsUefi, hasCdrom, readGuestAgent, readMacs, readVnc, readZvols, setCloudInitCdrom, setGuestAgent, setVnc } from '#agent/drivers/domain-xml-options';
import { parseDomState, parseListAll, parseUuidList } from '#agent/drivers/virsh';
import { makefsArgv } from '#agent/drivers/cloud-init';
import { fixture } from '../helpers/fixtures.ts';

describe('virsh output parsers (verbatim fixtures)', () => {
  test('virsh list --all, modern table', () => {
    expect(parseListAll(fixture('virsh-list-all.txt'))).toEqual([
      { id: 1, name: 'fv0', state: 'running' },
      { id: 2, name: 'fc4', state: 'running' },
      { id: 3, name: 'fc5', state: 'running' },
    ]);
  });

  test('virsh list --all, legacy widths with an inactive "shut off" domain', () => {
    expect(parseListAll(fixture('virsh-list-all-shutoff-legacy.txt'))).toEqual([{ id: null, name: 'precise32', state: 'shut off' }]);
  });

  test('virsh list --all without a header is an error, an empty table is no domains', () => {
    expect(() => parseListAll('error: failed to connect to the hypervisor\n')).toThrow(/header/);
    expect(parseListAll(' Id   Name   State\n--------------------\n\n')).toEqual([]);
  });

  test('virsh list --all --uuid: one UUID a line, then the empty line', () => {
    expect(parseUuidList('a1b2c3d4-0000-4000-8000-000000000001\n0f0e0d0c-0b0a-4999-8888-777766665555\n\n')).toEqual([
      'a1b2c3d4-0000-4000-8000-000000000001',
      '0f0e0d0c-0b0a-4999-8888-777766665555',
    ]);
    expect(parseUuidList('\n')).toEqual([]);
  });

  test('virsh domstate, with and without --reason', () => {
    expect(parseDomState(fixture('virsh-domstate-running.txt'))).toBe('running');
    expect(parseDomState(fixture('virsh-domstate-reason-running.txt'))).toBe('running');
    expect(parseDomState('shut off\n\n')).toBe('shut off');
  });
});

describe('domain XML: reading options from libvirt fixtures', () => {
  test('every fixture parses and keeps name, uuid and its elements through a round trip', () => {
    for (const f of [
      'bhyve-domain-vnc-gop-resolution.xml',
      'bhyve-domain-qemu-guest-agent-channel.xml',
      'bhyve-domain-commandline.xml',
      'bhyve-domain-passthru.xml',
    ]) {
      const d = DomainXml.parse(fixture(f));
      expect(d.name).toBe('bhyve');
      expect(d.type).toBe('bhyve');
      const again = DomainXml.parse(d.toString());
      expect(again.uuid).toBe(d.uuid);
      expect(childrenOf(again.devices).length).toBe(childrenOf(d.devices).length);
    }
  });

  test('the guest agent channel fixture has the guest agent; the VNC fixture does not', () => {
    expect(readGuestAgent(DomainXml.parse(fixture('bhyve-domain-qemu-guest-agent-channel.xml')))).toBe(true);
    expect(readGuestAgent(DomainXml.parse(fixture('bhyve-domain-vnc-gop-resolution.xml')))).toBe(false);
  });

  test('VNC graphics + GOP resolution as libvirt writes them', () => {
    expect(readVnc(DomainXml.parse(fixture('bhyve-domain-vnc-gop-resolution.xml')))).toEqual({
      enabled: true,
      bind: '127.0.0.1',
      port: 5904,
      resolution: '1920x1080',
      wait: false,
      auth: false,
    });
    // the .args fixture is what libvirt makes of it: the same listen address, port and size
    expect(fixture('bhyve-domain-vnc-gop-resolution.args')).toContain('fbuf,tcp=127.0.0.1:5904,w=1920,h=1080');
    expect(readVnc(DomainXml.parse(fixture('bhyve-domain-passthru.xml'))).enabled).toBe(false);
  });

  test('UEFI boot: a <loader> and no <bootloader>', () => {
    const uefi = DomainXml.parse(
      "<domain type='bhyve'><name>1</name><os><type>hvm</type><loader readonly='yes' type='pflash'>/usr/local/share/uefi-firmware/BHYVE_UEFI.fd</loader></os></domain>",
    );
    expect(bootsUefi(uefi)).toBe(true);
    const bhyveload = DomainXml.parse("<domain type='bhyve'><name>1</name><bootloader>/usr/sbin/bhyveload</bootloader><os><type>hvm</type></os></domain>");
    expect(bootsUefi(bhyveload)).toBe(false);
  });

  test('MACs and zvol datasets', () => {
    expect(readMacs(DomainXml.parse(fixture('bhyve-domain-commandline.xml')))).toEqual(['52:54:00:b9:94:02']);
    expect(readZvols(DomainXml.parse(fixture('bhyve-domain-commandline.xml')))).toEqual([]);
    const d = DomainXml.parse(
      "<domain type='bhyve'><name>7</name><devices><disk type='block' device='disk'><source dev='/dev/zvol/zroot/vm/7/disk0'/><target dev='hda' bus='sata'/></disk></devices></domain>",
    );
    expect(readZvols(d)).toEqual(['zroot/vm/7/disk0']);
  });

  test('a document that is not a domain is refused', () => {
    expect(() => DomainXml.parse('<network><name>default</name></network>')).toThrow(/no <domain> root/);
  });
});

describe('domain XML: patching', () => {
  test('guest agent on adds the virtio-serial controller and the channel as in the libvirt fixture; off removes both', () => {
    const d = DomainXml.parse(fixture('bhyve-domain-vnc-gop-resolution.xml'));
    setGuestAgent(d, true, '/var/run/libvirt/bhyve/bhyve.agent');
    const xml = d.toString();
    const reparsed = DomainXml.parse(xml);
    expect(readGuestAgent(reparsed)).toBe(true);
    const ref = DomainXml.parse(fixture('bhyve-domain-qemu-guest-agent-channel.xml'));
    const channel = (x: DomainXml) => find(x.devices, is('channel', { type: 'unix' }))!;
    expect(attrsOf(find(channel(reparsed), is('source'))!)).toEqual(attrsOf(find(channel(ref), is('source'))!));
    expect(attrsOf(find(channel(reparsed), is('target'))!)).toEqual(attrsOf(find(channel(ref), is('target'))!));
    expect(find(reparsed.devices, is('controller', { type: 'virtio-serial' }))).toBeDefined();
    // other devices are untouched
    expect(readVnc(reparsed).port).toBe(5904);

    setGuestAgent(reparsed, true, '/var/run/libvirt/bhyve/bhyve.agent');
    expect(childrenOf(reparsed.devices).filter(is('channel')).length).toBe(1);
    setGuestAgent(reparsed, false, '/var/run/libvirt/bhyve/bhyve.agent');
    expect(readGuestAgent(reparsed)).toBe(false);
    expect(find(reparsed.devices, is('controller', { type: 'virtio-serial' }))).toBeUndefined();
  });

  test('VNC on writes graphics + listen + GOP video; password kept when omitted, cleared when empty; off removes them', () => {
    const d = DomainXml.parse(fixture('bhyve-domain-qemu-guest-agent-channel.xml'));
    setVnc(d, { enabled: true, bind: '::1', port: 5907, resolution: '1280x720', password: 's3cret' });
    let r = DomainXml.parse(d.toString());
    expect(readVnc(r)).toEqual({ enabled: true, bind: '::1', port: 5907, resolution: '1280x720', wait: false, auth: true });
    // libvirt has no setting for bhyve's `wait`: nothing of the kind is written
    expect(Object.keys(attrsOf(find(r.devices, is('graphics'))!)).sort()).toEqual(['autoport', 'listen', 'passwd', 'port', 'type']);
    expect(attrsOf(find(r.devices, is('graphics'))!).passwd).toBe('s3cret');
    expect(attrsOf(find(find(r.devices, is('video'))!, is('model'))!)).toEqual({ type: 'gop', heads: '1', primary: 'yes' });

    setVnc(r, { enabled: true, bind: '127.0.0.1', port: 5908, resolution: '800x600' });
    expect(readVnc(r)).toEqual({ enabled: true, bind: '127.0.0.1', port: 5908, resolution: '800x600', wait: false, auth: true });
    setVnc(r, { enabled: true, bind: '127.0.0.1', port: 5908, resolution: '800x600', password: '' });
    r = DomainXml.parse(r.toString());
    expect(readVnc(r).auth).toBe(false);
    expect(childrenOf(r.devices).filter(is('graphics')).length).toBe(1);

    setVnc(r, { enabled: false, bind: '127.0.0.1', port: 5908, resolution: '800x600' });
    expect(find(r.devices, is('graphics'))).toBeUndefined();
    expect(find(r.devices, is('video'))).toBeUndefined();
    expect(readGuestAgent(r)).toBe(true);
  });

  test('attribute values are escaped on output', () => {
    const d = DomainXml.parse(fixture('bhyve-domain-passthru.xml'));
    setVnc(d, { enabled: true, bind: '127.0.0.1', port: 5900, resolution: '640x480', password: `a"<&'b` });
    const r = DomainXml.parse(d.toString());
    expect(attrsOf(find(r.devices, is('graphics'))!).passwd).toBe(`a"<&'b`);
  });

  test('the cloud-init seed attaches as a read-only SATA cdrom on a free target and detaches', () => {
    const d = DomainXml.parse(fixture('bhyve-domain-commandline.xml'));
    const iso = '/var/db/hostmgr/vms/7/cloud-init.iso';
    setCloudInitCdrom(d, iso, true);
    setCloudInitCdrom(d, iso, true);
    const r = DomainXml.parse(d.toString());
    expect(hasCdrom(r, iso)).toBe(true);
    const cdroms = childrenOf(r.devices).filter(is('disk', { device: 'cdrom' }));
    expect(cdroms.length).toBe(1);
    expect(attrsOf(find(cdroms[0], is('target'))!)).toEqual({ dev: 'hdb', bus: 'sata' });
    expect(find(cdroms[0], is('readonly'))).toBeDefined();
    setCloudInitCdrom(r, iso, false);
    expect(hasCdrom(r, iso)).toBe(false);
    expect(childrenOf(r.devices).filter(is('disk')).length).toBe(1);
  });

  test('makefs builds a cd9660 image labelled cidata', () => {
    expect(makefsArgv('/x/seed.iso', '/x/seed')).toEqual(['makefs', '-t', 'cd9660', '-o', 'rockridge', '-o', 'label=cidata', '/x/seed.iso', '/x/seed']);
  });
});
