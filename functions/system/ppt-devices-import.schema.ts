import { nodeQuery, type EndpointInput, type EndpointSchema } from '#http/spec';
import { pciDeviceIdSchema, pciDomainSchema } from '#domain/ppt/address';

export const schema = {
  operation: 'E9',
  summary: 'Take a domain-zero PCI device already attached to the ppt driver under management (loader.conf pptdevs)',
  role: 'admin',
  method: 'POST',
  route: '/api/system/ppt-devices/import',
  query: nodeQuery,
  body: {
    type: 'object',
    properties: { deviceID: pciDeviceIdSchema, domain: pciDomainSchema },
    required: ['deviceID', 'domain'],
    additionalProperties: false,
  },
  responses: {
    200: 'ppt_device_already_managed',
    201: 'ppt_device_imported',
    400: 'validation_failed | pci_domain_unsupported | invalid_pci_address',
    404: 'pci_device_not_found | cluster_node_not_found',
    409: 'pci_device_not_ppt',
    413: 'payload_too_large',
  },
  data: {
    title: 'PptDevice',
    // the spec's PCI passthrough device record, plus its node and the task writing /boot/loader.conf (null: none needed)
    type: 'object',
    properties: {
      id: { type: 'integer', minimum: 1 },
      deviceID: { type: 'string', description: 'bus/slot/function, decimal' },
      domain: { type: 'integer', const: 0 },
      oldDriver: { type: 'string' },
      nodeId: { type: 'string' },
      taskId: { type: ['integer', 'null'], minimum: 1 },
    },
    required: ['id', 'deviceID', 'domain', 'oldDriver', 'nodeId', 'taskId'],
    additionalProperties: false,
  },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
