import { parseJsonObject } from '#domain/notifications/json-object';

describe('a stored JSON object column read back', () => {
  test('an object reads as itself', () => {
    expect(parseJsonObject('{"url":"https://example.org/hook","retries":2}')).toEqual({ url: 'https://example.org/hook', retries: 2 });
    expect(parseJsonObject('{"email":{"error":"550 mailbox unavailable","at":"2026-11-23T16:00:00.000Z"}}')).toEqual({
      email: { error: '550 mailbox unavailable', at: '2026-11-23T16:00:00.000Z' },
    });
  });

  test('anything that is not a JSON object reads as {}', () => {
    for (const text of [undefined, null, '', 'null', '[1,2]', '"text"', '42', 'true', '{not json']) expect(parseJsonObject(text)).toEqual({});
  });
});
