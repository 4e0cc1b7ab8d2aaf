import { getopt } from '../format.ts';
import { isDir, listDir, readFile, writeFile } from '../file-tree.ts';
import { fail, registerCommand, withUsage } from '../registry.ts';

/**
 * FreeBSD's makefs(8), the ISO 9660 part (`-t cd9660`) that cloud-init seeds need. The simulated image is
 * a JSON description of what the real one would hold (volume label, Rock Ridge, each file and its content),
 * so tests can read back what a guest's cloud-init would see.
 *
 * The volume label (`-o label=`) follows cd9660.c cd9660_arguments_set_string(val, "Disk Label", 32, 'd', …):
 * at most 32 d-characters (A–Z, 0–9, `_`); lowercase letters are accepted and uppercased
 * (cd9660_valid_d_chars returns 2, then cd9660_uppercase_characters), anything else is refused.
 */
function diskLabel(value: string): string | { error: string } {
  if (value.length > 32) return { error: 'makefs: error: The Disk Label must be at most 32 characters long' };
  if (!/^[A-Za-z0-9_]*$/.test(value)) return { error: 'makefs: error: The Disk Label must be composed of d-characters' };
  return value.toUpperCase();
}
registerCommand(
  'makefs',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'B:b:d:f:F:M:m:N:O:o:pRs:S:t:T:xZ');
    const type = o.values.get('t') ?? 'ffs';
    if (type !== 'cd9660') return fail(`makefs: ${type}: simulated makefs only builds cd9660 images`);
    const [image, dir] = o.operands;
    if (!image || !dir || o.operands.length !== 2) return fail('usage: makefs [-t fs-type] [-o fs-options] image-file directory', 1);
    if (!isDir(ctx.state, dir)) return fail(`makefs: ${dir}: No such file or directory`);
    const options: Record<string, string | true> = {};
    // -o may repeat (getopt keeps the last value): collect every occurrence
    const oValues = ctx.args.flatMap((a, i) => (a === '-o' ? [ctx.args[i + 1] ?? ''] : a.startsWith('-o') ? [a.slice(2)] : []));
    for (const opt of oValues.flatMap((v) => v.split(','))) {
      const [k, v] = opt.split('=');
      options[k] = v ?? true;
    }
    const given = typeof options.label === 'string' ? options.label : typeof options.L === 'string' ? options.L : 'CDROM';
    const label = diskLabel(given);
    if (typeof label !== 'string') return fail(label.error);
    const files: Record<string, string> = {};
    for (const name of listDir(ctx.state, dir)) {
      const content = readFile(ctx.state, `${dir}/${name}`);
      if (content !== null) files[name] = content;
    }
    const rockridge = options.rockridge === true || options.R === true;
    const iso = { format: 'cd9660', label, rockridge, files };
    // open(2) with O_CREAT|O_TRUNC: an existing image keeps its mode, a new one gets 0644 (umask 022)
    if (!writeFile(ctx.state, image, JSON.stringify(iso, null, 2) + '\n')) return fail(`makefs: ${image}: No such file or directory`);
    return { stdout: `Calculated size of \`${image}': ${2048 * (18 + Object.keys(files).length)} bytes, 0 inodes\n` };
  }, '\tmakefs [-t fs-type] [-o fs-options] image-file directory'),
);
