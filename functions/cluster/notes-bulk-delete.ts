import spec from '#spec/cluster/notes-bulk-delete';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { bulkDeleteNotes } from '#domain/cluster/notes';
import type { Input } from './notes-bulk-delete.schema.ts';

/** E21. */
export const handler = endpoint<Input>(spec, async ({ body }, { db }) => ok('cluster_notes_deleted', { deleted: await bulkDeleteNotes(db, body.ids) }));
