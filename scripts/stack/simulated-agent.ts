/**
 * The agent on a simulated host: the same agent code as agent/main.ts, plus `--executor simulator`.
 * Bundled by `npm run build` into dist/simulator/agent.js; npm start and the tests run it. Hosts never do.
 * It lives with the dev stack, not in simulator/: the simulator imports nothing of the agent but the executor
 * interface it implements, so the composition of the two is the stack's.
 */
import { programPath } from '#agent/executors/program-path';
import { runAgentProcess } from '#agent/runtime/cli';
import { SimulatorExecutor } from '#simulator/executor';
import { RC_PATH } from '#simulator/profiles';

await runAgentProcess({
  // parseConfig requires --simulator-state with --executor simulator. The simulated host's agent is an rc.d
  // service: it inherits RC_PATH there, and gives its commands the PATH the local executor would.
  simulator: (cfg) => new SimulatorExecutor({ statePath: cfg.simulatorState!, path: programPath(cfg.programPath, RC_PATH) }),
});
