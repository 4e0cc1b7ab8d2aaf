import type * as esbuild from 'esbuild';
import { bundlesLoading } from './bundles-loading.ts';

const LOADER = /(^|[\\/])shared[\\/]auth[\\/]ip-library\.ts$/;

/**
 * ipaddr.js as a function bundle loads it: shared/auth/ip-library.ts imports it when first used (a refused
 * credential's failed-auth key, a changed routing table); in a bundle it imports the copy the build writes beside the bundle,
 * `<bundle>.ipaddr.js`, which the function's package takes with it (`dist/<module>.*`). A bundle whose own code
 * also imports ipaddr.js keeps that copy inside as well (−12.6 KB in the functions that use it for nothing else).
 */
export const ipLibraryBeside: esbuild.Plugin = {
  name: 'ip-library-beside',
  setup(build) {
    build.onLoad({ filter: LOADER }, () => ({
      contents: "export const ipLibrary = () => import(import.meta.url.replace(/\\.js$/, '.ipaddr.js')).then((m) => m.default);",
      loader: 'js',
    }));
  },
};

/** esbuild entry points writing ipaddr.js beside each function bundle that loads it. */
export const ipLibraryEntries = (meta: esbuild.Metafile): Record<string, string> =>
  Object.fromEntries(bundlesLoading(meta, LOADER).map((b) => [`${b.replace(/^dist\//, '')}.ipaddr`, 'node_modules/ipaddr.js/lib/ipaddr.js']));
