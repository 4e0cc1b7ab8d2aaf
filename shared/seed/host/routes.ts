/**
 * The seed's routing tables of a simulated host (`host.routing`): how many FIBs the kernel has
 * (`sysctl net.fibs`) and every route, as `netstat -rn -F <fib>` prints it (destination `default`, an
 * address or `addr/len`; gateway an address, `link#N` or an interface; flags such as `UGS`).
 */
export const simRoutingSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['routes'],
  properties: {
    /** net.fibs; default: the highest FIB a route names, plus one */
    fibs: { type: 'integer', minimum: 1, maximum: 65536 },
    routes: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['family', 'destination', 'gateway', 'interface'],
        properties: {
          fib: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
          family: { enum: ['inet', 'inet6'] },
          destination: { type: 'string', minLength: 1, maxLength: 64 },
          gateway: { type: 'string', minLength: 1, maxLength: 64 },
          /** netstat's flag letters; default `UGS` with a gateway address, `U` on a link */
          flags: { type: 'string', pattern: '^[A-Za-z0-9]{1,16}$' },
          interface: { type: 'string', minLength: 1, maxLength: 16 },
        },
      },
    },
  },
} as const;
