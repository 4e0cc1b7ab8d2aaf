// js-yaml, the project's one YAML library (the build and tests use it too): 42 KB against `yaml`'s 113 KB minified in
// the E17 bundle (esbuild, parse only; ≈ 32 KB with the loader alone, scripts/build/js-yaml-load-only.ts), against the
// 250 KB budget of a function bundle (npm run bench).
import { loadAll, YAMLException } from 'js-yaml';
import { type FieldError, ValidationError } from '#shared/errors/domain-errors';
import type { CloudInitOptions } from './types.ts';

const isBlank = (s: string) => s.trim() === '';

/** A YAML parse problem of one cloud-init part, or null when the text is valid YAML. */
function yamlProblem(text: string): string | null {
  try {
    loadAll(text, () => undefined);
    return null;
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    const at = err.mark ? ` (line ${err.mark.line + 1}, column ${err.mark.column + 1})` : '';
    return `must be valid YAML: ${err.reason}${at}`;
  }
}

/**
 * E17: data and metadata both empty (cloud-init off; networkConfig must then be empty too) or both set;
 * every non-empty part valid YAML. Whitespace-only parts count as empty and are stored as ''.
 */
export function checkCloudInit(body: CloudInitOptions): CloudInitOptions {
  const errors: FieldError[] = [];
  const norm = {
    data: isBlank(body.data) ? '' : body.data,
    metadata: isBlank(body.metadata) ? '' : body.metadata,
    networkConfig: isBlank(body.networkConfig) ? '' : body.networkConfig,
  };
  if (norm.data && !norm.metadata) errors.push({ field: 'body.metadata', problem: 'must be set when data is set (both or neither)' });
  if (!norm.data && norm.metadata) errors.push({ field: 'body.data', problem: 'must be set when metadata is set (both or neither)' });
  if (!norm.data && !norm.metadata && norm.networkConfig) {
    errors.push({ field: 'body.networkConfig', problem: 'must be empty when data and metadata are empty (cloud-init off)' });
  }
  for (const key of ['data', 'metadata', 'networkConfig'] as const) {
    const problem = norm[key] ? yamlProblem(norm[key]) : null;
    if (problem) errors.push({ field: `body.${key}`, problem });
  }
  if (errors.length) throw new ValidationError(errors);
  return norm;
}
