/** Stops the run's guest (its disk writes went to QEMU's -snapshot overlay: the image stays clean). */
export default async function globalTeardown() {
  await (globalThis as { hmRealZfsGuest?: { stop(): Promise<void> } }).hmRealZfsGuest?.stop();
}
