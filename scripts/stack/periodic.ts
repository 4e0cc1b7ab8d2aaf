/**
 * What a scheduled function does in AWS, run in this process instead, at a finer pace than the minutely schedule serverless-offline would keep (the stack switches that off with HM_SCHEDULES_ENABLED=false):
 * `pass` every `everyMs`, never two at once; its summary line (null: nothing to say) and its errors go to `log`,
 * prefixed with `name`. Returns a stop function that waits for a running pass.
 */
export function startPeriodic(name: string, everyMs: number, pass: () => Promise<string | null>, log: (line: string) => void): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = pass()
      .then((line) => line && log(`${name}: ${line}`))
      .catch((err: Error) => log(`${name}: ${err.message}`))
      .finally(() => (running = null));
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}
