/**
 * npm run docs:config — rewrites the settings table of docs/configuration.md from shared/config/settings.ts.
 * test/unit/config-docs.test.ts fails when the committed table differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withCurrentTable } from './docs/config-table.ts';

const FILE = 'docs/configuration.md';
const before = readFileSync(FILE, 'utf8');
const after = withCurrentTable(before);
if (after !== before) writeFileSync(FILE, after);
console.log(after === before ? `${FILE} is up to date` : `${FILE}: table rewritten`);
