import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A verbatim FreeBSD sample from test/fixtures/freebsd (its source is in SOURCES.md there). */
export const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/freebsd', name), 'utf8');
