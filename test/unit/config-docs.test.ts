import { readFileSync } from 'node:fs';
import { configTable, TABLE_END, TABLE_START, withCurrentTable } from '#scripts/docs/config-table';
import { SETTINGS } from '#shared/config/settings';

/** docs/configuration.md's table is generated from the settings table: a setting added or changed without
 * `npm run docs:config` fails here. */
test('the committed configuration table is the one generated from shared/config/settings.ts (npm run docs:config)', () => {
  const committed = readFileSync('docs/configuration.md', 'utf8');
  expect(committed).toContain(TABLE_START);
  expect(committed).toContain(TABLE_END);
  expect(withCurrentTable(committed)).toBe(committed);
  const table = configTable();
  for (const name of Object.keys(SETTINGS)) expect(table).toContain(`| \`${name}\` |`);
});
