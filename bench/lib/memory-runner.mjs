// Plain JavaScript, like cold-runner.mjs: one "Lambda container" of the memory bench. argv: <bundle.js>
// <events.json> <memoryMb> <gapMs>. Imports the bundle, answers every event in turn (the first cold; gapMs idle
// between two), and prints one line `@@bench {…}` on stderr: import time, each invocation's wall time and CPU time, the statuses, the process's largest RSS after an invocation.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [bundle, eventsFile, memoryMb, gapMs] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const context = () => {
  const deadline = Date.now() + 28_000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'bench',
    functionVersion: '$LATEST',
    memoryLimitInMB: memoryMb,
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bench',
    awsRequestId: `bench-${process.pid}-${Math.random()}`,
    logGroupName: '/aws/lambda/bench',
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => deadline - Date.now(),
  };
};
try {
  const t0 = performance.now();
  const mod = await import(pathToFileURL(bundle).href);
  const importMs = performance.now() - t0;
  const wallMs = [];
  const cpuMs = [];
  const statuses = {};
  // sampled, not getrusage's maxrss: a spawned child's maxrss starts from its parent's high-water mark
  let rssMb = process.memoryUsage().rss / 2 ** 20;
  for (const [i, ev] of events.entries()) {
    if (i > 0 && Number(gapMs) > 0) await new Promise((r) => setTimeout(r, Number(gapMs)));
    const c0 = process.cpuUsage();
    const t = performance.now();
    const res = await mod.handler(ev, context());
    wallMs.push(performance.now() - t);
    const c = process.cpuUsage(c0);
    cpuMs.push((c.user + c.system) / 1000);
    statuses[res?.statusCode ?? 0] = (statuses[res?.statusCode ?? 0] ?? 0) + 1;
    rssMb = Math.max(rssMb, process.memoryUsage().rss / 2 ** 20);
  }
  process.stderr.write(`@@bench ${JSON.stringify({ importMs, wallMs, cpuMs, statuses, rssMb })}\n`);
  process.exit(0);
} catch (err) {
  process.stderr.write(`@@bench ${JSON.stringify({ error: String(err?.stack ?? err) })}\n`);
  process.exit(1);
}
