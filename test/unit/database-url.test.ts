import { resolveDatabaseUrl } from '#store/database-url';
import { deadLetterAlarmName, ensureDeadLetterAlarm } from '#shared/queue/dlq-alarm';

describe('where a deployed function finds its database and watches its dead letters', () => {
  test('DATABASE_URL wins; without it nor HM_DATABASE_URL_PARAMETER the error names both', async () => {
    await expect(resolveDatabaseUrl({ DATABASE_URL: 'postgres://a/b', HM_DATABASE_URL_PARAMETER: '/x' })).resolves.toBe('postgres://a/b');
    await expect(resolveDatabaseUrl({})).rejects.toThrow(/DATABASE_URL is not set.*HM_DATABASE_URL_PARAMETER/);
  });

  test('a DLQ alarm is made only when deployed: never against the local emulator, never unless HM_DLQ_ALARMS=true', async () => {
    const cfg = { region: 'eu-west-1', prefix: 'hostmgr-ci' };
    await expect(ensureDeadLetterAlarm('n1', { ...cfg, endpoint: 'http://127.0.0.1:9324' }, { HM_DLQ_ALARMS: 'true' })).resolves.toBeNull();
    await expect(ensureDeadLetterAlarm('n1', cfg, {})).resolves.toBeNull();
    expect(deadLetterAlarmName('hostmgr-prod', 'abc')).toBe('hostmgr-prod-abc-dlq-depth');
  });
});
