import spec from '#spec/agent/telemetry';
import { log } from '#shared/log/logger';
import { endpoint } from '#http/endpoint';
import { ok, type Reply } from '#http/envelope';
import { boundNode } from '#domain/nodes/agent-binding';
import { ingestTelemetry } from '#domain/telemetry/ingest';
import { maintainTelemetry } from '#domain/telemetry/retention';
import type { TelemetrySample } from '#domain/telemetry/sample';
import type { Input, Output } from './telemetry.schema.ts';

/** Stores the samples of the token's node; then, at most once a minute per node, rolls up and prunes. */
export const handler = endpoint<Input>(spec, async ({ body }, { db, principal }): Promise<Reply<Output>> => {
  const nodeId = boundNode(principal);
  const stored = await ingestTelemetry(db, nodeId, body.samples as TelemetrySample[]);
  // housekeeping must not fail an ingest that has committed: a failed run is simply retried a minute later
  await maintainTelemetry(db, nodeId).catch((err) => log.warn('telemetry maintenance failed', { nodeId, cause: (err as Error).message }));
  return ok('telemetry_stored', stored);
});
