import { resolveDatabaseUrl } from '#store/database-url';

describe('where a deployed function finds its database', () => {
  test('DATABASE_URL wins; without it nor HM_DATABASE_URL_PARAMETER the error names both', async () => {
    await expect(resolveDatabaseUrl({ DATABASE_URL: 'postgres://a/b', HM_DATABASE_URL_PARAMETER: '/x' })).resolves.toBe('postgres://a/b');
    await expect(resolveDatabaseUrl({})).rejects.toThrow(/DATABASE_URL is not set.*HM_DATABASE_URL_PARAMETER/);
  });
});
