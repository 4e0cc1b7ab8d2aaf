import spec from '#spec/cluster/notes-create';
import { endpoint } from '#http/endpoint';
import { created } from '#http/envelope';

/** A function's bad setting fails its cold start (endpoint() runs at module load), naming the setting. */
test('an endpoint is not created while a setting of the functions has a bad value', () => {
  const fn = async () => created('cluster_note_created', {});
  const saved = process.env.HM_NOTIFY_MAX_ATTEMPTS;
  process.env.HM_NOTIFY_MAX_ATTEMPTS = 'many';
  try {
    expect(() => endpoint(spec, fn)).toThrow('HM_NOTIFY_MAX_ATTEMPTS="many" is not allowed: expected an integer 1–100');
  } finally {
    if (saved === undefined) delete process.env.HM_NOTIFY_MAX_ATTEMPTS;
    else process.env.HM_NOTIFY_MAX_ATTEMPTS = saved;
  }
  expect(typeof endpoint(spec, fn)).toBe('function');
});
