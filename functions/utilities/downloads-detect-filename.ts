import spec from '#spec/utilities/downloads-detect-filename';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { detectFilename } from '#domain/downloads/probe';
import type { Input } from './downloads-detect-filename.schema.ts';

/** E8: 200 `{filename}` (`""` when none), the message says how the probe went; refusals by policy are 400. */
export const handler = endpoint<Input>(spec, async ({ body }) => {
  const { filename, outcome } = await detectFilename({ url: body.url, ignoreTLS: body.ignoreTLS });
  return ok(outcome, { filename });
});
