/**
 * npm run cluster -- key rotate|status: the cluster key that E16 (POST /api/cluster/join) checks. A new key is
 * printed once; the store keeps only its SHA-256.
 */
import { parseArgs } from 'node:util';
import { clusterKeyRotatedAt, rotateClusterKey } from '#domain/cluster/key';
import { openCliStore, runCli, STORE_HELP, UsageError } from './cli/store.ts';

const HELP = `npm run cluster — the cluster key that nodes join with (E16, POST /api/cluster/join)

Usage:
  npm run cluster -- key rotate    replace the cluster key with a new random one and print it once
  npm run cluster -- key status    say whether a key is set and when it was last rotated (never the key)

The store keeps only the key's SHA-256: a lost key cannot be shown again, only rotated. Rotating does not
affect nodes that are members already; joins from then on need the new key. npm start creates a key at its
first start (on an empty store) and prints it.

${STORE_HELP}`;

async function rotate() {
  const store = await openCliStore();
  try {
    const key = await rotateClusterKey(store.db);
    console.log(`rotated the cluster key in ${store.where}`);
    console.log('cluster key — shown only now; give it to whoever joins nodes (POST /api/cluster/join):\n');
    console.log(`  ${key}\n`);
  } finally {
    await store.close();
  }
}

async function status() {
  const store = await openCliStore();
  try {
    const at = await clusterKeyRotatedAt(store.db);
    console.log(
      at
        ? `a cluster key is set in ${store.where} (last rotated ${at.toISOString()})`
        : `no cluster key is set in ${store.where}; run npm run cluster -- key rotate`,
    );
  } finally {
    await store.close();
  }
}

await runCli(async () => {
  let parsed;
  try {
    parsed = parseArgs({ allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const [area, command, ...extra] = parsed.positionals;
  if (parsed.values.help || !area) {
    console.log(HELP);
    if (!parsed.values.help) process.exitCode = 2;
    return;
  }
  if (area !== 'key') throw new UsageError(`unknown command "${area}": expected key`);
  if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (command === 'rotate') return rotate();
  if (command === 'status') return status();
  throw new UsageError(`unknown key command "${command ?? ''}": expected rotate or status`);
});
