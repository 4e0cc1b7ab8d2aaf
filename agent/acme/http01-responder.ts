import { setting } from '#shared/config/read';
import { createServer, type Server } from 'node:http';

/**
 * The agent's HTTP-01 responder (RFC 8555 §8.3): while an issuance runs, the ACME server fetches
 * `http://<domain>/.well-known/acme-challenge/<token>` and must get the key authorization. It answers only
 * the tokens of running issuances (404 for anything else) and listens only while there are any.
 *   HM_ACME_HTTP_PORT  port it listens on (80: where the ACME server connects; a test server may use another)
 *   HM_ACME_HTTP_HOST  address it binds (all addresses by default)
 */
const PREFIX = '/.well-known/acme-challenge/';
const tokens = new Map<string, string>();
let server: Server | null = null;
let listening: Promise<void> | null = null;

const responderPort = (): number => setting('HM_ACME_HTTP_PORT');

function start(): Promise<void> {
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const answer = req.method === 'GET' && path.startsWith(PREFIX) ? tokens.get(path.slice(PREFIX.length)) : undefined;
    if (answer === undefined) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(answer);
  });
  const s = server;
  return new Promise<void>((resolve, reject) => {
    s.once('error', (err) => {
      server = null;
      listening = null;
      reject(new Error(`the ACME HTTP-01 responder cannot listen on port ${responderPort()}: ${err.message}`));
    });
    s.listen(responderPort(), setting('HM_ACME_HTTP_HOST'), () => resolve());
  });
}

/** Answers `token` with `keyAuthorization` until withdrawn; starts listening with the first token. */
export async function serveChallenge(token: string, keyAuthorization: string): Promise<void> {
  tokens.set(token, keyAuthorization);
  listening ??= start();
  try {
    await listening;
  } catch (err) {
    tokens.delete(token);
    throw err;
  }
}

/** Stops answering `token`; closes the listener when no issuance needs it any more. */
export async function withdrawChallenge(token: string): Promise<void> {
  tokens.delete(token);
  if (tokens.size || !server) return;
  const s = server;
  server = null;
  listening = null;
  await new Promise<void>((resolve) => s.close(() => resolve()));
}
