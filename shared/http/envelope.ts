import type { APIGatewayProxyResultV2 } from 'aws-lambda';

import type { Envelope } from '#shared/agent-api/envelope';

// the envelope is what the agent reads too: declared with the agent wire (shared/agent-api/envelope.ts)
export type { Envelope };

/** What a handler returns: the status code (200 unless said), a snake_case message, and the data. */
export interface Reply<T = unknown> {
  statusCode?: number;
  message: string;
  data: T;
  headers?: Record<string, string>;
}

export const ok = <T>(message: string, data: T): Reply<T> => ({ statusCode: 200, message, data });
export const created = <T>(message: string, data: T): Reply<T> => ({ statusCode: 201, message, data });
/** 202 for work handed to an agent: `Location` points at the task. */
export const accepted = <T>(message: string, data: T, taskId: number): Reply<T> => ({
  statusCode: 202,
  message,
  data,
  headers: { Location: `/api/tasks/${taskId}` },
});

const JSON_HEADERS = { 'Content-Type': 'application/json' };

export function successResponse(reply: Reply): APIGatewayProxyResultV2 {
  const body: Envelope = { status: 'success', message: reply.message, error: '', data: reply.data ?? null };
  return { statusCode: reply.statusCode ?? 200, headers: { ...JSON_HEADERS, ...reply.headers }, body: JSON.stringify(body) };
}

export function errorResponse(
  statusCode: number,
  code: string,
  detail: string,
  data: unknown = null,
  headers: Record<string, string> = {},
): APIGatewayProxyResultV2 {
  const body: Envelope = { status: 'error', message: code, error: detail, data };
  return { statusCode, headers: { ...headers, ...JSON_HEADERS }, body: JSON.stringify(body) };
}
