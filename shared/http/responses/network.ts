import type { NatRule } from '#domain/network/nat-rules';
import type { natRouteSuggestions } from '#domain/network/route-suggestions';
import { describes } from './same.ts';
import { isoTime } from './time.ts';

/** A firewall NAT rule of a node (`toNatRule`). */
export const natRuleSchema = describes<NatRule>()({
  title: 'NatRule',
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1 },
    nodeId: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    enabled: { type: 'boolean' },
    type: { type: 'string', enum: ['snat', 'dnat', 'binat'] },
    family: { type: 'string', enum: ['inet', 'inet6', 'any'] },
    source: { type: 'string' },
    sourceObjectId: { type: ['integer', 'null'] },
    egressInterfaces: { type: 'array', items: { type: 'string' } },
    policyRouting: { type: 'boolean' },
    translateTo: { type: 'string' },
    createdAt: isoTime,
    updatedAt: isoTime,
  },
  required: [
    'id',
    'nodeId',
    'name',
    'description',
    'enabled',
    'type',
    'family',
    'source',
    'sourceObjectId',
    'egressInterfaces',
    'policyRouting',
    'translateTo',
    'createdAt',
    'updatedAt',
  ],
  additionalProperties: false,
} as const);

/** E18's answer: the Firewall NAT route suggestions of spec part 2. */
export const natRouteSuggestionsSchema = describes<Awaited<ReturnType<typeof natRouteSuggestions>>>()({
  type: 'array',
  items: {
    title: 'NatRouteSuggestion',
    type: 'object',
    properties: {
      name: { type: 'string' },
      description: { type: 'string' },
      destination: { type: 'string' },
      destinationType: { type: 'string', enum: ['host', 'network'] },
      family: { type: 'string', enum: ['inet', 'inet6'] },
      gateway: { type: 'string' },
      gatewayZone: { type: 'string' },
      interface: { type: 'string' },
      /** `gateway`: via the gateway address; `link`: directly on the interface; `none`: the FIB has no route */
      nextHopMode: { type: 'string', enum: ['gateway', 'link', 'none'] },
      sourceHint: { type: 'string' },
      enabled: { type: 'boolean' },
      fib: { type: 'integer', minimum: 0 },
    },
    required: [
      'name',
      'description',
      'destination',
      'destinationType',
      'family',
      'gateway',
      'gatewayZone',
      'interface',
      'nextHopMode',
      'sourceHint',
      'enabled',
      'fib',
    ],
    additionalProperties: false,
  },
} as const);
