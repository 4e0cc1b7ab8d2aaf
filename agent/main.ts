/**
 * hostmgr-agent: the long-running service on each host that runs its node's tasks and reports the host's
 * inventory and telemetry. `npm run agent -- --help`.
 * Bundled by `npm run build` into dist/agent/agent.js, which is what hosts run: it knows the real executors
 * (local, ssh) only. The agent on the host simulator is a separate entry and bundle (scripts/stack/simulated-agent.ts).
 */
import { runAgentProcess } from './runtime/cli.ts';

await runAgentProcess();
