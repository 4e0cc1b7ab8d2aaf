import type * as esbuild from 'esbuild';

/**
 * pg reads the server certificate's signature algorithm (an ASN.1 walk) only for SCRAM-SHA-256-PLUS, which it
 * uses when the client sets `enableChannelBinding`; the functions do not (plain SCRAM-SHA-256 over TLS, as RDS
 * offers it). In a function bundle that reader throws, naming this file, should the option ever be set (−1.9 KB).
 */
export const pgNoChannelBinding: esbuild.Plugin = {
  name: 'pg-no-channel-binding',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]crypto[\\/]cert-signatures\.js$/ }, () => ({
      contents:
        "exports.signatureAlgorithmHashFromCertificate = () => { throw new Error('SCRAM-SHA-256-PLUS (enableChannelBinding) is left out of function bundles (scripts/build/pg-no-channel-binding.ts)'); };",
      loader: 'js',
    }));
  },
};
