/** `npm test` (and anyone): build dist/ when it is stale (see build-if-stale.ts); exit 1 when the build fails. */
import { buildIfStale, BuildFailed } from './build-if-stale.ts';

try {
  if (buildIfStale() === 'up to date') console.log('dist/ is up to date with the sources');
} catch (err) {
  if (!(err instanceof BuildFailed)) throw err;
  console.error(err.message);
  process.exit(1);
}
