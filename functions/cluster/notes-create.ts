import spec from '#spec/cluster/notes-create';
import { endpoint } from '#http/endpoint';
import { created } from '#http/envelope';
import { createNote } from '#domain/cluster/notes';
import type { Input } from './notes-create.schema.ts';

export const handler = endpoint<Input>(spec, async ({ body }, { db }) => created('cluster_note_created', await createNote(db, body)));
