/**
 * Every deadline the suite names — a test's or hook's timeout, a `waitUntil` bound — is a bound against a hang,
 * never a measurement: speed is judged in `npm run bench`. On a busy machine (one core, other work beside it) the
 * same work takes several times longer, so each named bound is multiplied by HM_TEST_PATIENCE (default 3).
 * A passing run is never slower for it; only a hanging test waits longer before it fails.
 */
const raw = process.env.HM_TEST_PATIENCE;
const factor = raw === undefined || raw === '' ? 3 : Number(raw);
if (!Number.isFinite(factor) || factor < 1) throw new Error(`HM_TEST_PATIENCE must be a number ≥ 1, got ${JSON.stringify(raw)}`);

export const PATIENCE = factor;

/** A named deadline, stretched for a busy machine. */
export const patient = (ms: number): number => Math.round(ms * PATIENCE);
