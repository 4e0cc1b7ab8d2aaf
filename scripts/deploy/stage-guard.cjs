// serverless.yml resolves `${file(./scripts/deploy/stage-guard.cjs):check}` while it builds the template (package
// and deploy): in a `prod`/`production` stage, an address allow-list the functions read (the list the build wrote
// to .generated/prod-refused.json, from shared/config/settings.ts) that is set in the deployer's environment
// refuses the template, unless HM_PROD_ALLOW_SETTINGS names it: a test stack's 0.0.0.0/0 exemption left in a
// shell must not reach production. CommonJS because serverless loads a variable source with require().
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const PRODUCTION = ['prod', 'production'];

/** The refusal's message, or null when the settings may go into a template of this stage. */
function refusal(stage, env, refused) {
  if (!PRODUCTION.includes(String(stage).toLowerCase())) return null;
  const named = String(env.HM_PROD_ALLOW_SETTINGS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = named.filter((n) => !refused.includes(n));
  if (unknown.length > 0) return `HM_PROD_ALLOW_SETTINGS names ${unknown.join(', ')}: it may name only ${refused.join(', ')}`;
  const set = refused.filter((n) => String(env[n] ?? '').trim() !== '' && !named.includes(n));
  if (set.length === 0) return null;
  return (
    `${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set in the environment (${set.map((n) => `${n}=${env[n]}`).join(' ')}) ` +
    `and stage ${stage} is a production stage: unset ${set.length === 1 ? 'it' : 'them'}, or name ${set.length === 1 ? 'it' : 'them'} ` +
    `in HM_PROD_ALLOW_SETTINGS (comma-separated) to deploy ${set.length === 1 ? 'it' : 'them'} deliberately`
  );
}

module.exports = {
  refusal,
  check: async ({ resolveVariable }) => {
    const stage = await resolveVariable('sls:stage');
    const refused = JSON.parse(readFileSync(join(__dirname, '../../.generated/prod-refused.json'), 'utf8'));
    const why = refusal(stage, process.env, refused);
    if (why) throw new Error(why);
    return 'checked';
  },
};
