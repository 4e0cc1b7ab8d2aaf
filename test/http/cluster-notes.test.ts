import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';

/** Cluster notes: GET/POST /api/cluster/notes and E21 POST /api/cluster/notes/bulk-delete, over real HTTP. */
let operator: string;
let viewer: string;

const noteIds = async (ids: number[]) =>
  (await testDb().selectFrom('cluster_notes').select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort((a, b) => a - b);

async function newNotes(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await call('POST', '/cluster/notes', { token: operator, body: { title: `note ${uid()}`, content: `body ${i}` } });
    expectEnvelope(res, 201, 'cluster_note_created');
    out.push(res.body.data.id);
  }
  return out;
}

beforeAll(async () => {
  operator = await tokenFor('operator');
  viewer = await tokenFor('viewer');
});

describe('POST /cluster/notes', () => {
  test('201 with the stored note', async () => {
    const title = `Maintenance window ${uid()}`;
    const res = await call('POST', '/cluster/notes', { token: operator, body: { title, content: 'Saturday 02:00 UTC: zpool scrub on all members' } });
    expectEnvelope(res, 201, 'cluster_note_created');
    const row = await testDb().selectFrom('cluster_notes').selectAll().where('id', '=', res.body.data.id).executeTakeFirstOrThrow();
    expect(res.body.data).toEqual({
      id: row.id,
      title,
      content: 'Saturday 02:00 UTC: zpool scrub on all members',
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    });
  });

  test('content defaults to empty', async () => {
    const res = await call('POST', '/cluster/notes', { token: operator, body: { title: `t ${uid()}` } });
    expectEnvelope(res, 201);
    expect(res.body.data.content).toBe('');
  });

  test.each([
    [{}, 'body.title: is required'],
    [{ title: '' }, 'body.title'],
    [{ title: '   ' }, 'body.title'],
    [{ title: 7 }, 'body.title: must be string'],
    [{ title: 'x'.repeat(201) }, 'body.title'],
    [{ title: 'ok', content: 'x'.repeat(65537) }, 'body.content'],
    [{ title: 'ok', color: 'red' }, 'body.color: is not an accepted field'],
  ])('400 for %j', async (body, expected) => {
    const before = await testDb()
      .selectFrom('cluster_notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const res = await call('POST', '/cluster/notes', { token: operator, body });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain(expected);
    const after = await testDb()
      .selectFrom('cluster_notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  test('403 for a viewer, 401 without a token', async () => {
    expectEnvelope(await call('POST', '/cluster/notes', { token: viewer, body: { title: 'x' } }), 403, 'forbidden');
    expectEnvelope(await call('POST', '/cluster/notes', { token: null, body: { title: 'x' } }), 401, 'unauthorized');
  });
});

describe('GET /cluster/notes', () => {
  test('newest first, paged, for a viewer', async () => {
    const ids = await newNotes(3);
    const res = await call('GET', '/cluster/notes?size=3', { token: viewer });
    expectEnvelope(res, 200, 'cluster_notes_listed');
    // nothing else writes notes while this file runs (jest runs files serially)
    expect(res.body.data.data.map((n: { id: number }) => n.id)).toEqual([...ids].reverse());
    const total = Number(
      (
        await testDb()
          .selectFrom('cluster_notes')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(res.body.data.last_page).toBe(Math.ceil(total / 3));
  });

  test('400 for a bad size, 401 without a token', async () => {
    expectEnvelope(await call('GET', '/cluster/notes?size=0', { token: viewer }), 400, 'validation_failed');
    expectEnvelope(await call('GET', '/cluster/notes', { token: null }), 401);
  });
});

describe('E21 POST /cluster/notes/bulk-delete', () => {
  test('deletes exactly the requested set and answers {deleted}', async () => {
    const [a, b, c] = await newNotes(3);
    const res = await call('POST', '/cluster/notes/bulk-delete', { token: operator, body: { ids: [b, a] } });
    expectEnvelope(res, 200, 'cluster_notes_deleted');
    expect(res.body.data).toEqual({ deleted: [b, a] });
    expect(await noteIds([a, b, c])).toEqual([c]);
  });

  test('404 naming every missing id; nothing deleted', async () => {
    const [a, b] = await newNotes(2);
    const res = await call('POST', '/cluster/notes/bulk-delete', { token: operator, body: { ids: [a, 2147483000, b, 2147483001] } });
    expectEnvelope(res, 404, 'cluster_note_not_found');
    // the ids it names, exactly: a substring test fails whenever `a` happens to be digits of 2147483000 (e.g. 30)
    expect(/^cluster notes ([\d, ]+) do not exist; nothing was deleted$/.exec(res.body.error)?.[1].split(', ')).toEqual(['2147483000', '2147483001']);
    expect(res.body.data).toBeNull();
    expect(await noteIds([a, b])).toEqual([a, b].sort((x, y) => x - y));
  });

  test('a note deleted once is missing the second time', async () => {
    const [a, b] = await newNotes(2);
    expectEnvelope(await call('POST', '/cluster/notes/bulk-delete', { token: operator, body: { ids: [a] } }), 200);
    const res = await call('POST', '/cluster/notes/bulk-delete', { token: operator, body: { ids: [a, b] } });
    expectEnvelope(res, 404, 'cluster_note_not_found');
    expect(res.body.error).toMatch(new RegExp(`note ${a} does not exist`));
    expect(await noteIds([b])).toEqual([b]);
  });

  test.each([
    [{ ids: [] }, 'body.ids: must NOT have fewer than 1 items'],
    [{ ids: [5, 5] }, 'body.ids: must NOT have duplicate items'],
    [{ ids: [0] }, 'body.ids[0]: must be >= 1'],
    [{ ids: [3, -2] }, 'body.ids[1]: must be >= 1'],
    [{ ids: [2147483648] }, 'body.ids[0]: must be <= 2147483647'],
    [{ ids: ['1'] }, 'body.ids[0]: must be integer'],
    [{ ids: [1.5] }, 'body.ids[0]: must be integer'],
    [{ ids: 1 }, 'body.ids: must be array'],
    [{}, 'body.ids: is required'],
    [{ ids: [1], force: true }, 'body.force: is not an accepted field'],
    [[1, 2], 'body: must be object'],
  ])('400 for %j', async (body, expected) => {
    const [keep] = await newNotes(1);
    const res = await call('POST', '/cluster/notes/bulk-delete', { token: operator, body });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain(expected);
    expect(await noteIds([keep])).toEqual([keep]);
  });

  test('400 lists every bad item', async () => {
    const res = await call('POST', '/cluster/notes/bulk-delete', { token: operator, body: { ids: [0, 'x', 7], extra: 1 } });
    expectEnvelope(res, 400, 'validation_failed');
    for (const f of ['body.ids[0]', 'body.ids[1]', 'body.extra']) expect(res.body.error).toContain(f);
  });

  test('400 for malformed JSON, a non-JSON content type and a missing body', async () => {
    const [keep] = await newNotes(1);
    const bad = await call('POST', '/cluster/notes/bulk-delete', { token: operator, rawBody: `{"ids": [${keep}]` });
    expectEnvelope(bad, 400, 'malformed_json');
    const text = await call('POST', '/cluster/notes/bulk-delete', {
      token: operator,
      rawBody: `{"ids": [${keep}]}`,
      headers: { 'content-type': 'text/plain' },
    });
    expectEnvelope(text, 400, 'unsupported_content_type');
    const none = await call('POST', '/cluster/notes/bulk-delete', { token: operator });
    expectEnvelope(none, 400, 'validation_failed');
    expect(none.body.error).toContain('body');
    expect(await noteIds([keep])).toEqual([keep]);
  });

  test('413 for a body over 1 MiB, before anything is parsed or deleted', async () => {
    const [keep] = await newNotes(1);
    const rawBody = JSON.stringify({ ids: [keep], pad: 'x'.repeat(1024 * 1024) });
    const res = await call('POST', '/cluster/notes/bulk-delete', { token: operator, rawBody });
    expectEnvelope(res, 413, 'payload_too_large');
    expect(await noteIds([keep])).toEqual([keep]);
  });

  test('401 without a token; 403 for a viewer', async () => {
    const [keep] = await newNotes(1);
    expectEnvelope(await call('POST', '/cluster/notes/bulk-delete', { token: null, body: { ids: [keep] } }), 401, 'unauthorized');
    const res = await call('POST', '/cluster/notes/bulk-delete', { token: viewer, body: { ids: [keep] } });
    expectEnvelope(res, 403, 'forbidden');
    expect(res.body.error).toContain('operator');
    expect(await noteIds([keep])).toEqual([keep]);
  });
});
