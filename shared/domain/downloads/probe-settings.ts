import { parseCidr, type Cidr } from './address-policy.ts';

/**
 * The filename probe's allow-list: `HM_PROBE_ALLOW_CIDRS`, comma-separated CIDR ranges the probe may reach even
 * though the address policy refuses them. It exists so tests can run source servers on loopback; it is empty
 * by default, and in a production stage (`HM_STAGE` `prod` or `production`) it is refused: ignored, with an
 * error logged, so the probe keeps refusing every non-public address.
 */
const ALLOW_LIST_VAR = 'HM_PROBE_ALLOW_CIDRS';

const isProductionStage = (env: NodeJS.ProcessEnv) => ['prod', 'production'].includes((env.HM_STAGE ?? '').trim().toLowerCase());

let warned = false;

export function probeAllowList(env: NodeJS.ProcessEnv = process.env): Cidr[] {
  const raw = (env[ALLOW_LIST_VAR] ?? '').trim();
  if (!raw) return [];
  if (isProductionStage(env)) {
    if (!warned) console.error(`${ALLOW_LIST_VAR} is set in stage ${env.HM_STAGE}: refused, the filename probe admits no extra ranges`);
    warned = true;
    return [];
  }
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseCidr);
}
