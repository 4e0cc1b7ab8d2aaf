import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Node flags that leash a spawned node process to its parent (see leash.mjs). Paths are from the checkout's root, like dist/. */
export const LEASH = ['--import', pathToFileURL(resolve('scripts/stack/leash.mjs')).href];
