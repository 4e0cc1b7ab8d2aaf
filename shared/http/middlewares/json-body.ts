import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { badRequest, ValidationError } from '#http/errors';

export interface ParsedBodyEvent extends Omit<APIGatewayProxyEventV2, 'body'> {
  body?: unknown;
}

const isJsonType = (ct: string) => /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(ct.trim());

/**
 * Parses a JSON body. Malformed JSON and a non-JSON content type are 400 (Middy's own parser throws 415,
 * which the spec does not list). Endpoints that take no body accept an absent or empty one.
 */
export const jsonBody = (takesBody: boolean): middy.MiddlewareObj<ParsedBodyEvent> => ({
  before: (request) => {
    const event = request.event;
    const raw = event.body;
    const text = typeof raw === 'string' ? (event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw) : '';
    if (text.trim() === '') {
      if (takesBody) throw new ValidationError([{ field: 'body', problem: 'is required: send a JSON object' }]);
      event.body = undefined;
      return;
    }
    if (!takesBody) {
      event.body = undefined; // a POST without a body may still carry `{}`; nothing in it is read
      return;
    }
    const ct = event.headers?.['content-type'] ?? event.headers?.['Content-Type'] ?? '';
    if (!isJsonType(ct)) throw badRequest('unsupported_content_type', `Content-Type must be application/json (got "${ct || 'none'}")`);
    try {
      event.body = JSON.parse(text);
    } catch (err) {
      throw badRequest('malformed_json', `request body is not valid JSON: ${(err as Error).message}`);
    }
  },
});
