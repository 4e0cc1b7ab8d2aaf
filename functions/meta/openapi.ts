import { readFile } from 'node:fs/promises';
import spec from '#spec/meta/openapi';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';

/**
 * The document ships beside the bundle (the build writes dist/functions/meta/openapi.json), not inside it: it
 * grows with every operation and would push this bundle past the 250 KB budget, and parsing JSON on first use
 * is cheaper than compiling it as JavaScript at every cold start.
 */
let document: Promise<unknown> | undefined;
const load = () => (document ??= readFile(new URL('./openapi.json', import.meta.url), 'utf8').then(JSON.parse));

export const handler = endpoint(spec, async () => ok('openapi', await load()));
