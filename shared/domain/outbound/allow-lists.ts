import { setting } from '#shared/config/read';
import { log } from '#shared/log/logger';
import { parseCidr, type Cidr } from './address-policy.ts';

/**
 * The ranges each kind of outbound connection may reach although the address policy refuses them. All are empty
 * by default.
 * - `HM_PROBE_ALLOW_CIDRS` (E8's filename probe) and `HM_ACME_ALLOW_CIDRS` (the ACME directory E22 checks) exist
 *   for tests (a source server on loopback, pebble): in a production stage (`HM_STAGE` `prod` or `production`)
 *   they are refused — ignored, with an error logged — so those connections reach public addresses only.
 * - `HM_NOTIFY_ALLOW_CIDRS` names intentional internal receivers of notification deliveries (an in-house
 *   webhook, a relay SMTP server): a deployer's deliberate setting, honoured in every stage.
 * A malformed entry is refused naming the setting (shared/config): a typo must not silently narrow or widen the policy.
 */
export type OutboundPurpose = 'probe' | 'acme' | 'notify';

const SETTINGS: Record<
  OutboundPurpose,
  { variable: 'HM_PROBE_ALLOW_CIDRS' | 'HM_ACME_ALLOW_CIDRS' | 'HM_NOTIFY_ALLOW_CIDRS'; inProduction: boolean; what: string }
> = {
  probe: { variable: 'HM_PROBE_ALLOW_CIDRS', inProduction: false, what: 'the filename probe' },
  acme: { variable: 'HM_ACME_ALLOW_CIDRS', inProduction: false, what: 'the ACME directory check' },
  notify: { variable: 'HM_NOTIFY_ALLOW_CIDRS', inProduction: true, what: 'notification deliveries' },
};

const isProductionStage = (env: NodeJS.ProcessEnv) => ['prod', 'production'].includes(setting('HM_STAGE', env).toLowerCase());

const reported = new Set<string>();

export function allowList(purpose: OutboundPurpose, env: NodeJS.ProcessEnv = process.env): Cidr[] {
  const { variable, inProduction, what } = SETTINGS[purpose];
  const ranges = setting(variable, env);
  if (!ranges.length) return [];
  if (!inProduction && isProductionStage(env)) {
    if (!reported.has(variable))
      log.error(`${variable} is set in stage ${setting('HM_STAGE', env)}: refused, ${what} admits no extra ranges`, { setting: variable });
    reported.add(variable);
    return [];
  }
  return ranges.map(parseCidr);
}
