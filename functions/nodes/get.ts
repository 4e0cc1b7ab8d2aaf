import spec from '#spec/nodes/get';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { getNodeView } from '#domain/nodes/view';
import type { Input } from './get.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('node_found', await getNodeView(db, path.nodeId)));
