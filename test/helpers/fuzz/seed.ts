import { createHash } from 'node:crypto';

/** The run's base seed: fixed so every run sends the same requests; `HM_FUZZ_SEED` replays or varies it. */
export const fuzzSeed = (env: NodeJS.ProcessEnv = process.env) => (env.HM_FUZZ_SEED ? Number(env.HM_FUZZ_SEED) : 20261123);

/** Requests per route (`HM_FUZZ_RUNS` for a longer soak). */
export const fuzzRuns = (fallback: number, env: NodeJS.ProcessEnv = process.env) => (env.HM_FUZZ_RUNS ? Number(env.HM_FUZZ_RUNS) : fallback);

/** A route's own seed from the base seed and its name, so adding a route does not change the others' requests. */
export const seedFor = (base: number, route: string) => (base ^ createHash('sha256').update(route).digest().readInt32BE(0)) | 0;

/** How a failed route is reported: the seeds to replay it with and fast-check's counterexample path. */
export const failureReport = (route: string, base: number, seed: number, result: { counterexamplePath: string | null; errorInstance: unknown }) =>
  `${route} (HM_FUZZ_SEED=${base}, route seed ${seed}, path ${result.counterexamplePath}): ${(result.errorInstance as Error)?.message ?? String(result.errorInstance)}`;
