/**
 * `npm run provision:real-zfs`: builds (or finds) the cached OpenZFS guest image, and the machine state its boots
 * resume (test/real-zfs/saved-state.ts: one cold boot of the image, once), and prints the image's directory last.
 * HM_GUEST_IMAGE_FILE names a file to write that directory into once the image is complete.
 */
import { writeFileSync } from 'node:fs';
import { prepareBoot } from '../../test/real-zfs/guest.ts';
import { ensureImage } from './openzfs-guest.ts';

try {
  const img = await ensureImage((line) => console.log(line));
  if (process.env.HM_GUEST_IMAGE_FILE) writeFileSync(process.env.HM_GUEST_IMAGE_FILE, `${img.dir}\n`);
  try {
    await prepareBoot((line) => console.log(line));
  } catch (e) {
    // not fatal: every boot then starts cold (slower, same result)
    console.error(`${(e as Error).message}; the guest's boots will start cold`);
  }
  console.log(img.dir);
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
