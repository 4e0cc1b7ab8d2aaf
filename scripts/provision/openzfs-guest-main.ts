/**
 * `npm run provision:real-zfs`: builds (or finds) the cached OpenZFS guest image and prints its directory last.
 * HM_GUEST_IMAGE_FILE names a file to write that directory into once the image is complete.
 */
import { writeFileSync } from 'node:fs';
import { ensureImage } from './openzfs-guest.ts';

try {
  const img = await ensureImage((line) => console.log(line));
  if (process.env.HM_GUEST_IMAGE_FILE) writeFileSync(process.env.HM_GUEST_IMAGE_FILE, `${img.dir}\n`);
  console.log(img.dir);
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
