import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import Ajv, { type Options } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import addFormats from 'ajv-formats';
import { DEFAULT_BODY_LIMIT, type EndpointSchema } from '#http/spec';
import type { RouteDef } from './routes.ts';
import { AJV_MESSAGE_KEYWORDS, ajvMessage } from '#http/validator-error';

const OUT = '.generated/spec';

/**
 * ajv's standalone code still `require`s runtime helpers (and reads their `.default`); turn those into imports so
 * it is plain ESM. Node hands a CommonJS module's default import over as `module.exports`, while CommonJS
 * transpilers (jest's, running validators in-process) hand over `exports.default`: both are accepted.
 */
export function toEsm(code: string): string {
  const deps = new Map<string, string>();
  const body = code.replace(/require\("([^"]+)"\)/g, (_, mod: string) => {
    const spec = mod.endsWith('.js') ? mod : `${mod}.js`;
    if (!deps.has(spec)) deps.set(spec, `__dep${deps.size}`);
    return deps.get(spec)!;
  });
  const imports = [...deps].map(([m, v]) => `import ${v}_m from ${JSON.stringify(m)};const ${v} = "default" in Object(${v}_m) ? ${v}_m : { default: ${v}_m };`);
  return imports.join('\n') + '\n' + body;
}

/**
 * The schema with every nested object schema (one with `properties`) moved to `$defs` and referred to, identical
 * ones once. Compiled with `inlineRefs: false`, each becomes one function whose error paths start at its own
 * root: inlined, every error site of a deep schema spells its whole path from the document's root (the agent's
 * inventory unrolls a vdev tree six levels deep), and the validator's code grows with depth × sites. Same
 * verdicts and errors (instancePath, keyword, params, message); a subschema naming `$id` or `$ref` stays inline.
 */
export function hoistObjects(root: object): object {
  const defs: Record<string, unknown> = {};
  const names = new Map<string, string>();
  const walk = (s: unknown, top: boolean): unknown => {
    if (Array.isArray(s)) return s.map((x) => walk(x, false));
    if (!s || typeof s !== 'object') return s;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties' || k === 'patternProperties' || k === '$defs' || k === 'definitions')
        out[k] = Object.fromEntries(Object.entries(v as object).map(([p, ps]) => [p, walk(ps, false)]));
      else if (k === 'enum' || k === 'const' || k === 'required' || k === 'default' || k === 'examples') out[k] = v;
      else out[k] = walk(v, false);
    }
    if (top || !out.properties || '$id' in out || '$ref' in out) return out;
    const key = JSON.stringify(out);
    let name = names.get(key);
    if (!name) {
      name = `o${names.size}`;
      names.set(key, name);
      defs[name] = out;
    }
    return { $ref: `#/$defs/${name}` };
  };
  const out = walk(root, true) as Record<string, unknown>;
  if (!names.size) return out;
  if ('$defs' in out || '$id' in out) return root;
  return { ...out, $defs: defs };
}

/**
 * Every error site of a standalone validator also spells its `schemaPath`, which nothing reads (a 400 names its
 * field from instancePath, keyword and params: shared/http/middy-errors.ts; a task result's check from
 * instancePath and message): left empty, as it is ≈ 30 % of a large validator's minified code.
 */
export const withoutSchemaPaths = (code: string) => code.replace(/schemaPath:"(?:[^"\\]|\\.)*"/g, 'schemaPath:""');

/** The end of the object literal opening at `code[open]` ('{'), skipping strings; -1 when unbalanced. */
function literalEnd(code: string, open: number): number {
  let depth = 0;
  for (let i = open; i < code.length; i++) {
    const c = code[i];
    if (c === '"' || c === "'") {
      for (i++; i < code.length && code[i] !== c; i++) if (code[i] === '\\') i++;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

const STRING = String.raw`"(?:[^"\\]|\\.)*"`;
/** `{instancePath…,schemaPath:"",keyword:"k",params:{…},message:…}`: ajv's error literal, in its order. */
const ERROR_LITERAL = new RegExp(
  String.raw`^\{instancePath(?::(.+?))?,schemaPath:"",keyword:"([A-Za-z$]+)",params:(\{.*\}),message:((?:${STRING}\+?)+|.+)\}$`,
  's',
);
/** A message of nothing but string literals (evaluable here). */
const LITERAL_MESSAGE = new RegExp(String.raw`^(?:${STRING}\+?)+$`);
const literalText = (expr: string) => [...expr.matchAll(new RegExp(STRING, 'g'))].map((x) => JSON.parse(x[0]) as string).join('');

/** Keywords whose message does not read their params. */
const PARAM_FREE = new Set(['additionalProperties', 'enum']);

/** The value of a params literal made of keys, strings and numbers only; undefined for anything else. */
function literalParams(params: string): Record<string, unknown> | undefined {
  const rest = params.replace(new RegExp(STRING, 'g'), '""').replace(/[A-Za-z_$][\w$]*\s*:/g, ':');
  const values = rest.split(/[\s{}:,]+/).filter(Boolean);
  if (!values.every((v) => v === '""' || /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v))) return undefined;
  return new Function(`return (${params});`)() as Record<string, unknown>;
}

/** ajv's loop over a long `required` list (loopRequired): the message quotes the loop variable it also passes. */
const LOOP_REQUIRED = /^\{missingProperty: ([A-Za-z_$][\w$]*)\}$/;

/** Whether the helper rebuilds this site's message exactly as ajv wrote it (so the site may leave it out). */
function rebuildable(keyword: string, params: string, message: string): boolean {
  const loop = keyword === 'required' ? LOOP_REQUIRED.exec(params) : null;
  if (loop) return message === `"must have required property '"+${loop[1]}+"'"`;
  if (!AJV_MESSAGE_KEYWORDS.has(keyword) || !LITERAL_MESSAGE.test(message)) return false;
  const p = PARAM_FREE.has(keyword) ? {} : literalParams(params);
  return p !== undefined && ajvMessage(keyword, p) === literalText(message);
}

/**
 * Every error site of a standalone validator (ajv's `allErrors` code) spells out the same statements:
 * `const errN = {instancePath, schemaPath, keyword, params, message}; if (vErrors === null) vErrors = [errN];
 * else vErrors.push(errN); errors++;` — ≈ 130 minified bytes a site, 371 sites in the agent's inventory. Each
 * becomes one call of a helper (shared/http/validator-error.ts, one copy per bundle), `vErrors = __err(vErrors,
 * instancePath, keyword, params, message); errors++;`, which builds the same object (schemaPath empty: see
 * withoutSchemaPaths). A message that is exactly the text ajv derives from its keyword and literal params
 * (required, type, additionalProperties, enum, the limits, pattern, format: checked here with the helper's own
 * ajvMessage) is left for the helper to rebuild. Same errors, same keys in the same order; a site of any other
 * shape is left as it is.
 */
export function compactErrorSites(code: string): string {
  const head = /const (err\d+) = \{/g;
  let out = '';
  let from = 0;
  let sites = 0;
  for (let m = head.exec(code); m; m = head.exec(code)) {
    const open = m.index + m[0].length - 1;
    const close = literalEnd(code, open);
    if (close < 0) break;
    const tail = `;if(vErrors === null){vErrors = [${m[1]}];}else {vErrors.push(${m[1]});}errors++;`;
    const parts = ERROR_LITERAL.exec(code.slice(open, close + 1));
    if (!code.startsWith(tail, close + 1) || !parts) continue;
    const [, path, keyword, params, message] = parts;
    if (literalEnd(params, 0) !== params.length - 1) continue;
    const args = [path ?? 'instancePath', JSON.stringify(keyword), params, ...(rebuildable(keyword, params, message) ? [] : [message])];
    out += `${code.slice(from, m.index)}vErrors = __err(vErrors, ${args.join(', ')});errors++;`;
    from = close + 1 + tail.length;
    head.lastIndex = from;
    sites++;
  }
  if (!sites) return code;
  return `import { pushError as __err } from '#http/validator-error';\n${out}${code.slice(from)}`;
}

/**
 * ajv's standalone code declares each schema it compiled (`const schemaN = {…}`, the whole subschema) and reads
 * a few values from it at error sites (`params: {allowedValues: schemaN.properties.type.enum}`) or for key
 * checks; the whole object stays in the bundle for them (≈ 5 KB of the agent's inventory validator). Each such
 * read becomes a constant holding just that value (JSON, identical values once); the declarations nothing else
 * reads are then left for the bundler to drop. Same values (errors are compared by content, never identity).
 */
export function inlineSchemaReads(code: string): string {
  const values = new Map<string, unknown>();
  const decl = /const (schema\d+) = \{/g;
  for (let m = decl.exec(code); m; m = decl.exec(code)) {
    const open = m.index + m[0].length - 1;
    const close = literalEnd(code, open);
    if (close < 0) continue;
    const text = code.slice(open, close + 1);
    if (text.includes('"__proto__"')) continue;
    try {
      values.set(m[1], JSON.parse(text));
    } catch {
      // not JSON: its reads stay as they are
    }
  }
  if (!values.size) return code;
  const consts = new Map<string, string>();
  const read = new RegExp(String.raw`\b(schema\d+)((?:\.[A-Za-z_$][\w$]*|\[(?:${STRING}|\d+)\])+)`, 'g');
  const out = code.replace(read, (whole, name: string, path: string) => {
    if (!values.has(name)) return whole;
    const keys = [...path.matchAll(new RegExp(String.raw`\.([A-Za-z_$][\w$]*)|\[(${STRING}|\d+)\]`, 'g'))].map(
      (k) => k[1] ?? (k[2].startsWith('"') ? (JSON.parse(k[2]) as string) : Number(k[2])),
    );
    let v: unknown = values.get(name);
    for (const k of keys) {
      if (!v || typeof v !== 'object' || !Object.hasOwn(v, k)) return whole;
      v = (v as Record<string | number, unknown>)[k];
    }
    if (v === undefined) return whole;
    const json = JSON.stringify(v);
    if (!consts.has(json)) consts.set(json, `__sv${consts.size}`);
    return consts.get(json)!;
  });
  if (!consts.size) return code;
  return `${[...consts].map(([json, id]) => `const ${id} = ${json};`).join('\n')}\n${out}`;
}

/**
 * Each function of a standalone validator takes `{instancePath, parentData, parentDataProperty, rootData}` and
 * hands them to the functions it calls; the last three serve only coercion into the parent (`coerceTypes`) and
 * `$data` references. Where nothing but that hand-over reads them, they go from every signature and call (≈ 100
 * bytes a function in the agent's inventory validator); a validator that reads them anywhere else is left as it is.
 */
export function withoutUnusedContext(code: string): string {
  const out = code
    .replaceAll('{instancePath="", parentData, parentDataProperty, rootData=data}={}', '{instancePath=""}={}')
    .replace(/,parentData:[\w$."]+,parentDataProperty:[\w$."]+,rootData\}/g, '}');
  return /\b(parentData|parentDataProperty|rootData)\b/.test(out) ? code : out;
}

/**
 * Functions of a standalone validator that are the same code but for the validators they call: the agent's
 * inventory unrolls a vdev tree six levels deep, and four levels' functions differ only in which level's function
 * checks their children. Each such group becomes one factory taking the called validators, and each member a
 * constant made by it (`const validate31 = __twin0(validate25, validate33)`), after every declaration and in
 * call order. Same code runs for each member; its `errors` property stays on the member itself.
 */
export function mergeTwinFunctions(code: string): string {
  const head = /function (validate\d+)\(data, \{instancePath=""\}=\{\}\)\{/g;
  const fns: { name: string; start: number; end: number; key: string; refs: string[] }[] = [];
  for (let m = head.exec(code); m; m = head.exec(code)) {
    const close = literalEnd(code, m.index + m[0].length - 1);
    if (close < 0) return code;
    const refs: string[] = [];
    const key = code.slice(m.index, close + 1).replace(/\bvalidate\d+\b/g, (n) => {
      if (n === m![1]) return '__self';
      if (!refs.includes(n)) refs.push(n);
      return `__a${refs.indexOf(n)}`;
    });
    fns.push({ name: m[1], start: m.index, end: close + 1, key, refs });
    head.lastIndex = close + 1;
  }
  const exported = new Set([...code.matchAll(/export (?:const [\w$]+ = |default )(validate\d+)/g)].map((m) => m[1]));
  const groups = new Map<string, typeof fns>();
  for (const f of fns) if (!exported.has(f.name)) groups.set(f.key, [...(groups.get(f.key) ?? []), f]);
  const twins = [...groups.values()].filter((g) => g.length > 1);
  if (!twins.length) return code;
  const member = new Map(twins.flatMap((g, i) => g.map((f) => [f.name, { f, group: i }] as const)));
  // each constant after the members it is made from (a cycle among members: leave the code as it is)
  const consts: string[] = [];
  const state = new Map<string, 'busy' | 'done'>();
  const emit = (name: string): boolean => {
    if (state.get(name) === 'done') return true;
    if (state.get(name) === 'busy') return false;
    state.set(name, 'busy');
    const { f, group } = member.get(name)!;
    for (const r of f.refs) if (member.has(r) && !emit(r)) return false;
    consts.push(`const ${name} = __twin${group}(${f.refs.join(', ')});`);
    state.set(name, 'done');
    return true;
  };
  for (const name of member.keys()) if (!emit(name)) return code;
  let out = '';
  let from = 0;
  for (const f of [...member.values()].map((x) => x.f).sort((a, b) => a.start - b.start)) {
    out += code.slice(from, f.start);
    from = f.end;
  }
  out += code.slice(from);
  const factories = twins.map((g, i) => `function __twin${i}(${g[0].refs.map((_, j) => `__a${j}`).join(', ')}) { return ${g[0].key}; }`);
  return `${out}\n${factories.join('\n')}\n${consts.join('\n')}\n`;
}

const REQUIRED_UNROLLED = 2;

function compile(schema: object, opts: Options): string {
  // loopRequired: a `required` list of more than REQUIRED_UNROLLED names is checked in a loop over it, not one
  // statement a name (same errors, same order; ≈ 4 KB less in the agent's inventory validator)
  const ajv = new Ajv({
    allErrors: true,
    useDefaults: true,
    strict: false,
    inlineRefs: false,
    loopRequired: REQUIRED_UNROLLED,
    code: { source: true, esm: true },
    ...opts,
  });
  addFormats(ajv);
  const validate = ajv.compile(hoistObjects(schema));
  return mergeTwinFunctions(withoutUnusedContext(inlineSchemaReads(compactErrorSites(withoutSchemaPaths(toEsm(standaloneCode(ajv, validate)))))));
}

/** Names of the integer-typed parameters of a path or query schema (checked for canonical decimal). */
function integerParams(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  return Object.entries(props)
    .filter(([, p]) => p.type === 'integer' || p.type === 'number' || (Array.isArray(p.type) && (p.type.includes('integer') || p.type.includes('number'))))
    .map(([name]) => name);
}

export async function loadSchema(module: string): Promise<EndpointSchema | null> {
  const file = `${module}.schema.ts`;
  if (!existsSync(file)) return null;
  const mod = (await import(pathToFileURL(join(process.cwd(), file)).href)) as { schema?: EndpointSchema };
  if (!mod.schema) throw new Error(`${file} must export \`schema\``);
  return mod.schema;
}

/** Writes `.generated/spec/<area>/<op>.js` (+ .d.ts) for every route; returns the schemas by module. */
export async function compileSpecs(routes: RouteDef[]): Promise<Map<string, EndpointSchema | null>> {
  const schemas = new Map<string, EndpointSchema | null>();
  for (const r of routes) {
    if (schemas.has(r.module)) continue;
    const schema = await loadSchema(r.module);
    schemas.set(r.module, schema);
    const base = join(OUT, relative('functions', r.module));
    mkdirSync(dirname(base), { recursive: true });
    const parts: string[] = [];
    if (schema?.path || schema?.query) {
      const req = {
        type: 'object',
        properties: { path: schema.path ?? { type: 'object' }, query: schema.query ?? { type: 'object' } },
      };
      writeFileSync(`${base}.request.js`, compile(req, { coerceTypes: true }));
      parts.push(`import request from './${r.module.split('/').pop()}.request.js';`);
    }
    if (schema?.body) {
      writeFileSync(`${base}.body.js`, compile(schema.body as object, { coerceTypes: false }));
      parts.push(`import body from './${r.module.split('/').pop()}.body.js';`);
    }
    const spec = {
      name: r.name,
      integers: { path: integerParams(schema?.path), query: integerParams(schema?.query) },
      role: schema?.role ?? 'viewer',
      bodyLimit: schema?.bodyLimit ?? DEFAULT_BODY_LIMIT,
      takesBody: Boolean(schema?.body),
      auditRefusalsOnly: schema?.audit === 'refusals',
    };
    const fields = Object.entries(spec).map(([k, v]) => `${k}: ${JSON.stringify(v)}`);
    fields.push(`request: ${parts.some((p) => p.startsWith('import request')) ? 'request' : 'null'}`);
    fields.push(`body: ${parts.some((p) => p.startsWith('import body')) ? 'body' : 'null'}`);
    writeFileSync(
      `${base}.js`,
      `// generated by scripts/build from ${r.module}.schema.ts — do not edit\n${parts.join('\n')}\nexport default { ${fields.join(', ')} };\n`,
    );
    writeFileSync(`${base}.d.ts`, `import type { CompiledSpec } from '#http/spec';\ndeclare const spec: CompiledSpec;\nexport default spec;\n`);
  }
  return schemas;
}
