import { createHmac } from 'node:crypto';
import { backoffSeconds, deliveryDefaults } from '#domain/notifications/delivery/worker';
import { signBody } from '#domain/notifications/delivery/signature';
import { checkDeliveryUrl } from '#domain/notifications/channels';

describe('delivery retries, signature and URL policy', () => {
  test('retries back off exponentially from the base and stop growing at the cap', () => {
    const o = { backoffS: 5, backoffMaxS: 3600 };
    expect([1, 2, 3, 4, 5].map((n) => backoffSeconds(n, o))).toEqual([5, 10, 20, 40, 80]);
    expect(backoffSeconds(20, o)).toBe(3600);
    expect(deliveryDefaults({})).toEqual({ limit: 50, maxAttempts: 6, backoffS: 5, backoffMaxS: 3600, timeoutMs: 10_000 });
    expect(deliveryDefaults({ HM_NOTIFY_MAX_ATTEMPTS: '3', HM_NOTIFY_BACKOFF_S: '0.3' })).toMatchObject({ maxAttempts: 3, backoffS: 0.3 });
    expect(() => deliveryDefaults({ HM_NOTIFY_BACKOFF_S: 'x' })).toThrow('HM_NOTIFY_BACKOFF_S="x" is not allowed: expected a number 0.01–86400');
  });

  test('the signature is sha256=<hex HMAC-SHA256 of the raw body> with the secret', () => {
    const body = '{"event":"task.failed","id":1}';
    expect(signBody('It’s a Secret to Everybody', body)).toBe(`sha256=${createHmac('sha256', 'It’s a Secret to Everybody').update(body).digest('hex')}`);
    expect(signBody('a', body)).not.toBe(signBody('b', body));
  });

  test.each(['file:///etc/passwd', 'gopher://127.0.0.1:70/', 'ftp://example.net/x', 'javascript:alert(1)', 'not a url'])('refuses %s', (url) => {
    expect(() => checkDeliveryUrl('body.webhook.url', url)).toThrow(/body\.webhook\.url: /);
  });

  test.each(['http://127.0.0.1:8080/hook', 'https://ntfy.sh', 'https://discord.com/api/webhooks/1/x'])('accepts %s', (url) => {
    expect(() => checkDeliveryUrl('body.webhook.url', url)).not.toThrow();
  });
});
