import spec from '#spec/network/nat-route-suggestions';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { natRouteSuggestions } from '#domain/network/route-suggestions';
import type { Input } from './nat-route-suggestions.schema.ts';

/** E18: read-only and synchronous; next hops come from the routing tables the node's agent reported. */
export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('nat_route_suggestions', await natRouteSuggestions(db, path.id)));
