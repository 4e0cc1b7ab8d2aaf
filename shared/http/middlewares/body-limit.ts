import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { payloadTooLarge } from '#http/errors';

/** Refuses an oversized body before anything parses it (413). */
export const bodyLimit = (limit: number): middy.MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: (request) => {
    const { body, isBase64Encoded } = request.event;
    if (!body) return;
    const size = isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
    if (size > limit) throw payloadTooLarge(`request body is ${size} bytes; the limit here is ${limit} bytes`);
  },
});
