import { parseCidr, type Cidr } from './address-policy.ts';

/**
 * The ranges each kind of outbound connection may reach although the address policy refuses them. All are empty
 * by default.
 * - `HM_PROBE_ALLOW_CIDRS` (E8's filename probe) and `HM_ACME_ALLOW_CIDRS` (the ACME directory E22 checks) exist
 *   for tests (a source server on loopback, pebble): in a production stage (`HM_STAGE` `prod` or `production`)
 *   they are refused — ignored, with an error logged — so those connections reach public addresses only.
 * - `HM_NOTIFY_ALLOW_CIDRS` names intentional internal receivers of notification deliveries (an in-house
 *   webhook, a relay SMTP server): a deployer's deliberate setting, honoured in every stage.
 * A malformed entry is logged once and ignored, so a typo never widens the policy nor takes a function down.
 */
export type OutboundPurpose = 'probe' | 'acme' | 'notify';

const SETTINGS: Record<OutboundPurpose, { variable: string; inProduction: boolean; what: string }> = {
  probe: { variable: 'HM_PROBE_ALLOW_CIDRS', inProduction: false, what: 'the filename probe' },
  acme: { variable: 'HM_ACME_ALLOW_CIDRS', inProduction: false, what: 'the ACME directory check' },
  notify: { variable: 'HM_NOTIFY_ALLOW_CIDRS', inProduction: true, what: 'notification deliveries' },
};

const isProductionStage = (env: NodeJS.ProcessEnv) => ['prod', 'production'].includes((env.HM_STAGE ?? '').trim().toLowerCase());

const reported = new Set<string>();
function reportOnce(message: string) {
  if (reported.has(message)) return;
  reported.add(message);
  console.error(message);
}

export function allowList(purpose: OutboundPurpose, env: NodeJS.ProcessEnv = process.env): Cidr[] {
  const { variable, inProduction, what } = SETTINGS[purpose];
  const raw = (env[variable] ?? '').trim();
  if (!raw) return [];
  if (!inProduction && isProductionStage(env)) {
    reportOnce(`${variable} is set in stage ${env.HM_STAGE}: refused, ${what} admits no extra ranges`);
    return [];
  }
  const out: Cidr[] = [];
  for (const part of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    try {
      out.push(parseCidr(part));
    } catch {
      reportOnce(`${variable}: "${part}" is not a CIDR range (e.g. 10.0.0.0/8); ignored`);
    }
  }
  return out;
}
