// the telemetry sample is part of the agent wire (shared/agent-api/telemetry.ts): declared there once
export * from '#shared/agent-api/telemetry';
