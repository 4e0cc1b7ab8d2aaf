/** Types of tiers.cjs (a CommonJS file, so jest.config.js and the tests load it without a transform). */
export declare const TIERS: readonly ['fast', 'stack', 'e2e', 'real-zfs'];
export declare function testFiles(root: string): string[];
export declare function tierTags(source: string): string[];
export declare function tiersOf(file: string, source: string): string[];
export declare function profileSensitive(source: string): boolean;
export declare function plan(root: string): {
  fast: string[];
  stack: string[];
  e2e: string[];
  'real-zfs': string[];
  profileSensitive: string[];
  unplaced: string[];
};
