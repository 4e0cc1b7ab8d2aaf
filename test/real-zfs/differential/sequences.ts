import type { Sequence } from './sequence.ts';
import { POOL_SEQUENCES } from './sequences-pool.ts';
import { DATASET_SEQUENCES } from './sequences-dataset.ts';
import { AGENT_FIX_SEQUENCES, SEND_SEQUENCES } from './sequences-send.ts';

export const SEQUENCES: Sequence[] = [...POOL_SEQUENCES, ...DATASET_SEQUENCES, ...SEND_SEQUENCES, ...AGENT_FIX_SEQUENCES];
