import spec from '#spec/cluster/notes-list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { listNotes } from '#domain/cluster/notes';
import type { Input } from './notes-list.schema.ts';

export const handler = endpoint<Input>(spec, async ({ query }, { db }) => ok('cluster_notes_listed', await listNotes(db, query)));
