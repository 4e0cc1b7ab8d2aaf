// Plain JavaScript on purpose: this is the whole "Lambda" process of a cold-init sample, and a TypeScript
// loader would add its own start-up to the measurement. argv: <bundle.js> <event.json>; the event file also
// carries the context name. Prints one line `@@bench {…}` on stderr and exits as soon as the first response
// is back (pg's pool would otherwise keep the process alive).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const started = performance.now(); // ms since this process began
const [bundle, eventFile] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const deadline = Date.now() + 28_000;
const context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'bench',
  functionVersion: '$LATEST',
  memoryLimitInMB: '256',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bench',
  awsRequestId: `bench-${process.pid}`,
  logGroupName: '/aws/lambda/bench',
  logStreamName: 'bench',
  getRemainingTimeInMillis: () => deadline - Date.now(),
};
let status = 0,
  message = '';
try {
  const t0 = performance.now();
  const mod = await import(pathToFileURL(bundle).href);
  const t1 = performance.now();
  const res = await mod.handler(event, context);
  const t2 = performance.now();
  status = res?.statusCode ?? 0;
  try {
    message = JSON.parse(res.body).message;
  } catch {
    message = '';
  }
  process.stderr.write(`@@bench ${JSON.stringify({ boot: t0, importMs: t1 - t0, invokeMs: t2 - t1, total: t2, started, status, message })}\n`);
  process.exit(0);
} catch (err) {
  process.stderr.write(`@@bench ${JSON.stringify({ error: String(err?.stack ?? err) })}\n`);
  process.exit(1);
}
