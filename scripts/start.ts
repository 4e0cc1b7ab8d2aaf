/**
 * npm start: the whole local stack — PGlite (or DATABASE_URL), migrations, an admin token, the demo seed
 * (or HM_SEED), and serverless-offline on http://localhost:3000/api. Ctrl-C stops everything.
 */
import { startStack } from './stack/stack.ts';
import { DEMO_NODE_ID } from './stack/local-agent.ts';

if (process.argv.includes('--help')) {
  console.log(`npm start — run the control plane locally

Environment:
  DATABASE_URL     use this PostgreSQL database instead of the embedded PGlite store under .local/pglite
  HM_ADMIN_TOKEN   install this admin token (hm_ + 43 base64url chars) instead of generating one
  HM_SEED          load this seed file (JSON, see shared/seed/seed.schema.json) before serving
  HM_HTTP_PORT     API port (default 3000); HM_LAMBDA_PORT (default 3002); HM_PGLITE_PORT (default 5433)
  HM_QUEUE_PORT    the local SQS (fauxqs) port (default 9324)
  HM_AGENT_NODE    run the agent for this seeded node against the simulator (default ${DEMO_NODE_ID});
                   "none" runs no agent. Its simulated host lives in .local/simulator/<node>.json`);
  process.exit(0);
}

const stack = await startStack({
  dataDir: '.local/pglite',
  databaseUrl: process.env.DATABASE_URL || undefined,
  pglitePort: Number(process.env.HM_PGLITE_PORT ?? 5433),
  httpPort: Number(process.env.HM_HTTP_PORT ?? 3000),
  lambdaPort: Number(process.env.HM_LAMBDA_PORT ?? 3002),
  adminToken: process.env.HM_ADMIN_TOKEN || undefined,
  seedFile: process.env.HM_SEED || undefined,
  demoSeed: true,
  logDir: '.local/logs',
  queuePort: Number(process.env.HM_QUEUE_PORT ?? 9324),
  agentNodeId: process.env.HM_AGENT_NODE === 'none' ? undefined : process.env.HM_AGENT_NODE || DEMO_NODE_ID,
});

console.log(`
  Host management control plane is up.
  API:          ${stack.apiUrl.replace('127.0.0.1', 'localhost')}   (OpenAPI: ${stack.apiUrl}/openapi.json)
  Store:        ${stack.storeKind === 'pglite' ? `PGlite at ${stack.databaseUrl}` : 'PostgreSQL (DATABASE_URL)'}
  Seed:         ${stack.seeded ?? 'none (store already had data)'}
  Admin token:  ${stack.adminToken}
  Queue:        fauxqs at ${stack.queueEndpoint} (prefix ${stack.queuePrefix})
  Agent:        ${stack.agent ? `node ${stack.agent.nodeId}, simulator ${stack.agent.statePath}, log ${stack.agent.logFile}` : 'none'}

  Try: curl -H "Authorization: Bearer ${stack.adminToken}" ${stack.apiUrl}/notifications/count
`);

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, async () => {
    if (stopping) return;
    stopping = true;
    console.log('stopping…');
    await stack.stop();
    process.exit(0);
  });
}
