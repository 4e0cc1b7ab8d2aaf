import type { SimHost } from '#shared/seed/host/schema';

/**
 * The simulated host's GEOM tree, built from its seeded disks: each disk (class DISK), its GPT partitions
 * (PART, `<disk>p<index>`), and on a partition its GPT label (LABEL, `gpt/<label>`) and GELI provider (ELI,
 * `<partition>.eli`); a disk's `diskid/DISK-<ident>` label (LABEL) sits on the disk itself.
 *
 * `sysctl kern.geom.conftxt` prints it as freebsd-src sys/geom/geom_dump.c g_conftxt does: the DISK (and MD)
 * classes' providers, each `level class name mediasize sectorsize` plus its geom's dumpconf for a NULL indent,
 * followed by every geom consuming it one level deeper. The dumpconf extras: DISK ` hd <fwheads> sc <fwsectors>`
 * (geom_disk.c g_disk_dumpconf); PART ` i <index> o <offset> ty <type>` + GPT's ` xs GPT xt <type uuid>`
 * (g_part.c g_part_dumpconf, g_part_gpt.c g_part_gpt_dumpconf); LABEL, a slice geom, ` i 0 o 0`
 * (geom_slice.c g_slice_dumpconf); ELI nothing for a provider (g_eli.c g_eli_dumpconf).
 */
export interface GeomProvider {
  level: number;
  className: 'DISK' | 'PART' | 'LABEL' | 'ELI';
  name: string;
  mediasize: number;
  sectorsize: number;
  extra: string;
  /** the DISK provider at the top of this provider's chain */
  disk: string;
}

/** gpart's type names → GPT type UUIDs (sys/sys/disk/gpt.h) */
const GPT_TYPE: Record<string, string> = {
  efi: 'c12a7328-f81f-11d2-ba4b-00a0c93ec93b',
  'freebsd-boot': '83bd6b9d-7f41-11dc-be0b-001560b84f0f',
  'freebsd-swap': '516e7cb5-6ecf-11d6-8ff8-00022d09712b',
  'freebsd-ufs': '516e7cb6-6ecf-11d6-8ff8-00022d09712b',
  'freebsd-zfs': '516e7cba-6ecf-11d6-8ff8-00022d09712b',
};
const SECTOR = 512;
/** GPT's first usable LBA (40) in bytes, where gpart puts the first partition without -a */
const FIRST_OFFSET = 40 * SECTOR;

export function geomProviders(host: SimHost): GeomProvider[] {
  const out: GeomProvider[] = [];
  // the DISK class's geom list is newest first (LIST_INSERT_HEAD), as kern.disks is
  for (const d of [...host.disks].reverse()) {
    out.push({ level: 0, className: 'DISK', name: d.name, mediasize: d.sizeBytes, sectorsize: SECTOR, extra: ' hd 16 sc 63', disk: d.name });
    if (d.ident)
      out.push({ level: 1, className: 'LABEL', name: `diskid/DISK-${d.ident}`, mediasize: d.sizeBytes, sectorsize: SECTOR, extra: ' i 0 o 0', disk: d.name });
    // offsets in table order; listed newest consumer first (LIST_INSERT_HEAD), so the highest index first
    let offset = FIRST_OFFSET;
    const parts = [...(d.partitions ?? [])]
      .sort((a, b) => a.index - b.index)
      .map((p) => {
        const at = offset;
        offset += p.sizeBytes;
        return { ...p, offset: at };
      });
    for (const p of parts.reverse()) {
      const name = `${d.name}p${p.index}`;
      out.push({
        level: 1,
        className: 'PART',
        name,
        mediasize: p.sizeBytes,
        sectorsize: SECTOR,
        extra: ` i ${p.index} o ${p.offset} ty ${p.type} xs GPT xt ${GPT_TYPE[p.type]}`,
        disk: d.name,
      });
      if (p.label)
        out.push({ level: 2, className: 'LABEL', name: `gpt/${p.label}`, mediasize: p.sizeBytes, sectorsize: SECTOR, extra: ' i 0 o 0', disk: d.name });
      // GELI keeps its metadata in the provider's last sector; `geli init` defaults to 4096-byte sectors
      if (p.eli) out.push({ level: 2, className: 'ELI', name: `${name}.eli`, mediasize: p.sizeBytes - 4096, sectorsize: 4096, extra: '', disk: d.name });
    }
  }
  return out;
}

/** `sysctl -n kern.geom.conftxt` */
export const conftxt = (host: SimHost): string =>
  geomProviders(host)
    .map((p) => `${p.level} ${p.className} ${p.name} ${p.mediasize} ${p.sectorsize}${p.extra}\n`)
    .join('');

/** The disk a GEOM provider lives on (`ada0p3.eli` → ada0, `gpt/zfs0` → the disk of its partition), or null. */
export function diskOfProvider(host: SimHost, name: string): string | null {
  return geomProviders(host).find((p) => p.name === name)?.disk ?? null;
}
