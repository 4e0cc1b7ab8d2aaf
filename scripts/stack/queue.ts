import { startFauxqs } from 'fauxqs';

export interface LocalQueue {
  /** the SQS endpoint (HM_QUEUE_ENDPOINT) */
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * The local SQS (DESIGN §1): fauxqs, in-process. Node queues are created by registration (like in AWS), so
 * nothing is pre-created here. Its state is in memory: after a restart the sweeper re-sends queued tasks
 * whose messages were lost with it.
 */
export async function startLocalQueue(port = 0): Promise<LocalQueue> {
  const server = await startFauxqs({ port, logger: false, host: 'localhost' });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}
