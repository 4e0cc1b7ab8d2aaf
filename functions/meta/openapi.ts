import spec from '#spec/meta/openapi';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import document from '#generated/openapi.json' with { type: 'json' };

export const handler = endpoint(spec, async () => ok('openapi', document));
