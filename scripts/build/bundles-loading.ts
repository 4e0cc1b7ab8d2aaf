import type * as esbuild from 'esbuild';

/** The bundles (dist/<module>, without `.js`) that hold a module matching `loader`, from the functions' metafile. */
export const bundlesLoading = (meta: esbuild.Metafile, loader: RegExp): string[] =>
  Object.entries(meta.outputs)
    .filter(([out, o]) => out.endsWith('.js') && Object.keys(o.inputs).some((i) => loader.test(i)))
    .map(([out]) => out.replace(/\.js$/, ''));
