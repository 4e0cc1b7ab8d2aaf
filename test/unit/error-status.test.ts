import { conflict, forbidden, invalid, notFound, unavailable, ValidationError } from '#shared/errors/domain-errors';
import { HttpError } from '#http/errors';
import { renderError } from '#http/error-status';

describe('the error renderer maps domain errors to statuses', () => {
  test('each kind answers with its status, code, detail and data unchanged', () => {
    expect(renderError(invalid('tunable_read_only', 'body.name: x'))).toEqual({
      statusCode: 400,
      code: 'tunable_read_only',
      detail: 'body.name: x',
      data: null,
    });
    expect(renderError(forbidden('not yours'))).toEqual({ statusCode: 403, code: 'forbidden', detail: 'not yours', data: null });
    expect(renderError(notFound('jail_not_found', 'jail 7'))).toEqual({ statusCode: 404, code: 'jail_not_found', detail: 'jail 7', data: null });
    expect(renderError(conflict('resource_busy', 'busy', { taskId: 3 }))).toEqual({
      statusCode: 409,
      code: 'resource_busy',
      detail: 'busy',
      data: { taskId: 3 },
    });
    expect(renderError(unavailable('node_offline', 'node x'))).toEqual({ statusCode: 503, code: 'node_offline', detail: 'node x', data: null });
  });
  test('field errors are 400 validation_failed listing every field', () => {
    const e = new ValidationError([
      { field: 'body.a', problem: 'is required' },
      { field: 'body.b', problem: 'must be > 0' },
    ]);
    expect(renderError(e)).toEqual({ statusCode: 400, code: 'validation_failed', detail: 'body.a: is required; body.b: must be > 0', data: null });
  });
  test('HTTP-only errors keep their status; anything else is not rendered (500)', () => {
    expect(renderError(new HttpError(413, 'payload_too_large', 'too big'))).toMatchObject({ statusCode: 413, code: 'payload_too_large' });
    expect(renderError(new Error('boom'))).toBeUndefined();
  });
});
