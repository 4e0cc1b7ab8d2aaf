// @tier stack
import { testDb, uid } from '../helpers/api.ts';
import { createToken, generateToken, revokeToken, TokenRevokedError, verifyToken } from '#shared/auth/tokens';

/** createToken with a known secret (HM_ADMIN_TOKEN at every npm start) never un-revokes it. */
test('installing a known secret again keeps its row; after revocation it throws and the row stays revoked', async () => {
  const secret = generateToken();
  const name = `admin ${uid()}`;
  const first = await createToken(testDb(), { name, role: 'admin', secret });
  const second = await createToken(testDb(), { name, role: 'admin', secret });
  expect(second.id).toBe(first.id);
  expect((await verifyToken(testDb(), secret)).ok).toBe(true);

  expect(await revokeToken(testDb(), String(first.id))).toBe(1);
  const err = await createToken(testDb(), { name, role: 'admin', secret }).catch((e) => e);
  expect(err).toBeInstanceOf(TokenRevokedError);
  expect(err.tokenId).toBe(first.id);
  expect(await verifyToken(testDb(), secret)).toEqual({ ok: false, reason: 'token revoked' });
});
