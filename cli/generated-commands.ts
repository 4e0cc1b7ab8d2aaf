import { type Command, Option } from 'commander';
import { clientFor, perform, type Io } from './context.ts';
import { coerce, hint, kebab, type Operation } from './operations.ts';
import { refKind, resolveRef } from './resolve-refs.ts';

/**
 * One command per API operation, named by its operationId (`hostmgr jail-migrate 101 --target-node-uuid …`):
 * path parameters are arguments, query parameters and the body's properties are options typed by their
 * schemas, `--body JSON` gives a whole body. Made from the OpenAPI document, so a new endpoint has its
 * command without a line here.
 */
export function addGeneratedCommands(program: Command, operations: Operation[], io: Io, o: { showAgentRoutes?: boolean } = {}): void {
  for (const op of operations) {
    // the agent's own routes (role agent) work but are no operator's business: out of --help unless asked for
    const cmd = program
      .command(op.id, { hidden: isAgentRoute(op) && !o.showAgentRoutes })
      .helpGroup(isAgentRoute(op) ? 'Agent routes (what a node agent calls):' : 'API operations (by operationId):')
      .description(`${op.summary}${op.role ? ` (role: ${op.role})` : ''}\n${op.method} ${op.route}`);
    for (const p of op.pathParams)
      cmd.argument(`<${p.name}>`, refKind(p.name) ? `${p.schema.type ?? 'string'}, or the ${refKind(p.name)}'s name` : `${p.schema.type ?? 'string'}`);
    const optionNames: string[] = [];
    for (const q of op.query) {
      cmd.addOption(new Option(`--${kebab(q.name)} ${hint(q.schema)}`, `query ${q.name}${q.required ? ' (required)' : ''}`));
      optionNames.push(q.name);
    }
    const props = op.body?.properties ?? {};
    for (const [name, schema] of Object.entries(props)) {
      const required = op.body?.required?.includes(name);
      const flag = hint(schema).startsWith('[') ? `--${kebab(name)} [value]` : `--${kebab(name)} ${hint(schema)}`;
      cmd.addOption(new Option(flag, `${schema.description ?? `body ${name}`}${required ? ' (required)' : ''}`));
      optionNames.push(name);
    }
    if (op.body) cmd.option('--body <json>', 'the whole request body as JSON (options above override its fields)');
    cmd.addHelpText('after', `\nExample:\n  ${example(op)}\n`);
    cmd.action(async (...args: unknown[]) => {
      const self = args[args.length - 1] as Command;
      const values = self.opts() as Record<string, string | boolean | undefined>;
      // a node's or a guest's name where its id is expected: looked up before the value is typed
      const byName = (name: string, raw: string) => {
        const kind = refKind(name);
        return kind ? resolveRef(clientFor(self, io), kind, raw) : Promise.resolve(raw);
      };
      let path = op.route.replace(/^\/api/, '');
      for (const [i, p] of op.pathParams.entries()) {
        const v = coerce(p.name, await byName(p.name, String(args[i])), p.schema);
        path = path.replace(`{${p.name}}`, encodeURIComponent(String(v)));
      }
      const query: Record<string, string> = {};
      for (const q of op.query) {
        const raw = values[camel(kebab(q.name))];
        if (raw !== undefined) query[q.name] = String(coerce(q.name, await byName(q.name, String(raw)), q.schema));
      }
      let body: Record<string, unknown> | undefined;
      if (op.body) {
        body = values.body ? (coerce('body', String(values.body), { type: 'object' }) as Record<string, unknown>) : {};
        for (const [name, schema] of Object.entries(props)) {
          const raw = values[camel(kebab(name))];
          if (raw !== undefined) body[name] = coerce(name, raw === true ? '' : await byName(name, String(raw)), schema);
        }
      }
      await perform(self, io, op.method, path, { query, body });
    });
  }
}

export const isAgentRoute = (op: Operation) => op.role === 'agent';

/** commander's attribute name for an option: --target-node-uuid → targetNodeUuid */
const camel = (k: string) => k.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function sample(schema: { type?: string | string[]; enum?: unknown[]; minimum?: number }): string {
  if (schema.enum) return String(schema.enum[0]);
  const t = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (t === 'integer' || t === 'number') return String(Math.max(1, schema.minimum ?? 1));
  if (t === 'boolean') return 'true';
  if (t === 'object') return "'{}'";
  if (t === 'array') return "'[]'";
  return '<text>';
}

function example(op: Operation): string {
  const args = op.pathParams.map((p) => sample(p.schema));
  const required = [
    ...op.query.filter((q) => q.required).map((q) => [q.name, q.schema] as const),
    ...Object.entries(op.body?.properties ?? {}).filter(([n]) => op.body?.required?.includes(n)),
  ];
  return ['hostmgr', op.id, ...args, ...required.map(([n, s]) => `--${kebab(n)} ${sample(s)}`)].join(' ');
}
