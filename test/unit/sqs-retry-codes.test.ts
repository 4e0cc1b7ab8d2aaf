import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CLOCK_SKEW_ERROR_CODES, retryableAnswer, THROTTLING_ERROR_CODES, TRANSIENT_ERROR_CODES, TRANSIENT_ERROR_STATUS_CODES } from '#agent/sqs/retry-codes';
import { SqsError } from '#agent/sqs/sqs-call';

/**
 * The agent's SQS calls retry what the AWS SDK retries: its lists are copied into agent/sqs/retry-codes.ts (the
 * SDK's module would weigh on the agent's start), so they are checked here against the installed SDK's own.
 */
const sdkConstants = () => {
  // the constants module sits behind @smithy/core's exports map (only ./retry is exported) and is ESM, which this
  // suite does not load: its `export const NAME = [literal];` lines are read as the values they declare
  const pkg = createRequire(join(process.cwd(), 'package.json')).resolve('@smithy/core/package.json');
  const text = readFileSync(join(dirname(pkg), 'dist-es/submodules/retry/service-error-classification/constants.js'), 'utf8');
  const out: Record<string, unknown> = {};
  for (const m of text.matchAll(/export const (\w+) = (\[[^\]]*\]);/g)) out[m[1]] = JSON.parse(m[2].replace(/,\s*\]$/, ']'));
  return out;
};

test('the retry lists are the SDK’s', () => {
  const sdk = sdkConstants();
  expect({ THROTTLING_ERROR_CODES, TRANSIENT_ERROR_CODES, TRANSIENT_ERROR_STATUS_CODES, CLOCK_SKEW_ERROR_CODES }).toEqual({
    THROTTLING_ERROR_CODES: sdk.THROTTLING_ERROR_CODES,
    TRANSIENT_ERROR_CODES: sdk.TRANSIENT_ERROR_CODES,
    TRANSIENT_ERROR_STATUS_CODES: sdk.TRANSIENT_ERROR_STATUS_CODES,
    CLOCK_SKEW_ERROR_CODES: sdk.CLOCK_SKEW_ERROR_CODES,
  });
  expect(THROTTLING_ERROR_CODES.length).toBeGreaterThan(5);
});

test('an error answer is retried as the SDK would retry it', () => {
  const answer = (name: string, status: number) => retryableAnswer(new SqsError(name, name, status));
  expect(answer('ThrottlingException', 400)).toBe(true);
  expect(answer('RequestThrottled', 403)).toBe(true);
  expect(answer('Http429', 429)).toBe(true);
  expect(answer('InternalError', 500)).toBe(true);
  expect(answer('RequestTimeout', 400)).toBe(true);
  expect(answer('QueueDoesNotExist', 400)).toBe(false);
  expect(answer('ReceiptHandleIsInvalid', 400)).toBe(false);
  expect(answer('SignatureDoesNotMatch', 403)).toBe(false); // unless the clock offset was corrected since
  const skewed = new SqsError('SignatureDoesNotMatch', 'x', 403);
  skewed.clockSkewCorrected = true;
  expect(retryableAnswer(skewed)).toBe(true);
});
