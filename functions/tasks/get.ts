import spec from '#spec/tasks/get';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { getTask, toTaskView } from '#shared/jobs/tasks';
import type { Input } from './get.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('task_found', toTaskView(await getTask(db, path.id))));
