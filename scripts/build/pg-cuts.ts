import { pgNoChannelBinding } from './pg-no-channel-binding.ts';
import { pgNoNative } from './pg-no-native.ts';
import { pgNoPgpass } from './pg-no-pgpass.ts';
import { pgTextOnly } from './pg-text-only.ts';

/** What a function bundle leaves out of pg (each plugin says why): the build's list, which the bench's store floor shares. */
export const pgCuts = [pgNoNative, pgNoPgpass, pgTextOnly, pgNoChannelBinding];
