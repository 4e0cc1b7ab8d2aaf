import { buildApp } from 'fauxqs';

export interface LocalQueue {
  /** the SQS endpoint (HM_QUEUE_ENDPOINT) */
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * The local SQS: fauxqs (an SQS emulator), in-process, listening on loopback only — anyone who can reach it can
 * send to and read every node queue. (fauxqs's startFauxqs binds 0.0.0.0 whatever it is asked, so its app
 * is listened on here.) Node queues are created by registration (like in AWS), so nothing is pre-created.
 * Its state is in memory: after a restart the sweeper re-sends queued tasks whose messages were lost with it.
 */
export async function startLocalQueue(port = 0): Promise<LocalQueue> {
  const app = buildApp({ logger: false, host: 'localhost' });
  const address = await app.listen({ port, host: '127.0.0.1' });
  return { endpoint: `http://127.0.0.1:${new URL(address).port}`, stop: () => app.close() };
}
