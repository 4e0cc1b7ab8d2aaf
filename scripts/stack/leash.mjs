/**
 * Preloaded (`node --import …/leash.mjs`) into every long-lived process the local stack spawns (serverless
 * offline, agents): when the process that started it is gone — killed without the chance to stop its
 * children — the child sends itself SIGTERM (an agent drains, offline closes). So no process outlives
 * npm start or the test stack, however they end. Plain JS: agents run from dist/ without tsx.
 */
const parent = process.ppid;
const timer = setInterval(() => {
  // reparented (to init or a subreaper) means the parent died
  if (process.ppid !== parent) {
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }
}, 500);
timer.unref();
