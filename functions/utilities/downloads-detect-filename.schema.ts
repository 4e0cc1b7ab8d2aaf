import type { EndpointInput, EndpointSchema } from '#http/spec';

export const schema = {
  operation: 'E8',
  summary: 'Best-effort probe of the filename an http(s) download source advertises ("" when none)',
  role: 'admin',
  method: 'POST',
  route: '/api/utilities/downloads/detect-filename',
  body: {
    type: 'object',
    properties: {
      url: { type: 'string', minLength: 1, maxLength: 8192 },
      ignoreTLS: { type: 'boolean' },
    },
    required: ['url'],
    additionalProperties: false,
  },
  responses: {
    200: 'filename_detected | no_filename_advertised | source_unreachable | source_timeout | source_error_status | source_tls_error | source_bad_redirect',
    400: 'validation_failed | invalid_url | unsupported_scheme | address_not_allowed | too_many_redirects',
    413: 'payload_too_large',
  },
  data: {
    title: 'FilenameProbe',
    type: 'object',
    properties: { filename: { type: 'string', description: '"" when the source advertises none' } },
    required: ['filename'],
    additionalProperties: false,
  },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
