import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { notFound } from '#shared/errors/domain-errors';
import { responder, type HmContext } from '#http/middlewares/responder';

/** Catch-all route: unknown paths answer 404 in the envelope, naming the method and path. */
export const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, HmContext>()
  .use(responder())
  .handler(async (event) => {
    throw notFound('route_not_found', `no route for ${event.requestContext?.http?.method ?? ''} ${event.rawPath}; see GET /api/openapi.json`);
  });
