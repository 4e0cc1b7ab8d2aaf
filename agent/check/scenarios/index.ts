import type { Scenario } from '../runner.ts';
import { groupScenario } from './group.ts';
import { inventoryScenario } from './inventory.ts';
import { iscsiScenario } from './iscsi.ts';
import { jailScenario } from './jail.ts';
import { scratchPoolScenario } from './scratch-pool.ts';
import { sysctlScenario } from './sysctl.ts';
import { vmScenario } from './vm.ts';

/** Every scenario, in the order they run: read-only first, then the reversible ones; those with `optIn` only when asked for. */
export const SCENARIOS: Scenario[] = [inventoryScenario, sysctlScenario, groupScenario, scratchPoolScenario, jailScenario, vmScenario, iscsiScenario];
