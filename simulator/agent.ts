/**
 * The agent on a simulated host: the same agent code as agent/main.ts, plus `--executor simulator`.
 * Bundled by `npm run build` into dist/simulator/agent.js; npm start and the tests run it. Hosts never do.
 */
import { runAgentProcess } from '#agent/runtime/cli';
import { SimulatorExecutor } from './executor.ts';

await runAgentProcess({
  // parseConfig requires --simulator-state with --executor simulator
  simulator: (cfg) => new SimulatorExecutor({ statePath: cfg.simulatorState! }),
});
