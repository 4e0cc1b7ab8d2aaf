import type { TaskRow } from '#store/tables';
import { taskOfItsKind } from '#shared/jobs/task-of-kind';

/**
 * An outcome reads a stored task as its kind's (shared/jobs/task-of-kind.ts): the payload and the result are checked
 * against the kind's schemas first, and one that is not its kind's stops with the task, the part and the field.
 */
const row = (over: Partial<TaskRow>) =>
  ({ id: 7, kind: 'snapshot.destroy', status: 'success', payload: { snapshot: 'tank/a@s1' }, result: null, ...over }) as TaskRow;

test('a task whose payload and result are its kind’s comes back as it was', async () => {
  const task = row({ result: { snapshot: 'tank/a@s1' } });
  expect(await taskOfItsKind(task)).toEqual(task);
  expect(await taskOfItsKind(row({ status: 'running' }))).toEqual(row({ status: 'running' }));
});

test('a task that did not succeed, with a result that is not its kind’s, reaches its outcome without one', async () => {
  for (const status of ['failed', 'cancelled', 'interrupted'] as const) {
    const task = row({ status, result: { partial: true } });
    expect(await taskOfItsKind(task)).toEqual({ ...task, result: null });
  }
});

test('a kind this control plane does not know has no typed form', async () => {
  expect(await taskOfItsKind(row({ kind: 'pool.defrag' }))).toBeNull();
});

test.each([
  ['payload', { payload: { snapshot: 12 } }, /task 7 \(snapshot\.destroy\): its stored payload is not its kind's \(payload\.snapshot: must be string\)/],
  ['payload', { payload: { snapshot: 'tank/a@s1', extra: 1 } }, /its stored payload is not its kind's \(payload: must NOT have additional properties\)/],
  ['payload', { payload: null }, /its stored payload is not its kind's \(payload: must be object\)/],
  ['result', { result: { name: 'tank/a@s1' } }, /its stored result is not its kind's \(result: must have required property 'snapshot'/],
] as const)('a stored %s that is not its kind’s stops with the reason', async (_part, over, message) => {
  await expect(taskOfItsKind(row(over as Partial<TaskRow>))).rejects.toThrow(message);
});
