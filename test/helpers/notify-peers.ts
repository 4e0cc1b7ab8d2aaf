import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * The loopback address the peers listen on: the one the test stack lets notification deliveries reach
 * (`HM_NOTIFY_ALLOW_CIDRS`); deliveries to any other loopback address are refused by the outbound-address policy.
 */
export const NOTIFY_PEER_HOST = '127.0.0.3';

/** A real SMTP server on loopback that accepts one user and parses every mail it receives (mailparser). */
export interface TestSmtp {
  port: number;
  mails: ParsedMail[];
  /** the credentials each authenticated session presented */
  logins: Array<{ username: string; password: string }>;
  close(): Promise<void>;
}

export async function startSmtp(user: { username: string; password: string }, host = NOTIFY_PEER_HOST): Promise<TestSmtp> {
  const mails: ParsedMail[] = [];
  const logins: TestSmtp['logins'] = [];
  const server = new SMTPServer({
    // plain SMTP on loopback: no certificate to trust; AUTH is still required
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: false,
    logger: false,
    onAuth(auth, _session, done) {
      logins.push({ username: auth.username ?? '', password: auth.password ?? '' });
      if (auth.username === user.username && auth.password === user.password) return done(null, { user: auth.username });
      return done(new Error('Invalid username or password'));
    },
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((m) => {
          mails.push(m);
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, logins, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** the status this receiver answered */
  status: number;
}

/**
 * An HTTP receiver on loopback recording every request; `answers` are the statuses to answer in turn (the last
 * one repeats), e.g. [500, 500, 200] for a receiver that fails twice, then accepts.
 */
export interface TestReceiver {
  url: string;
  requests: ReceivedRequest[];
  answers: number[];
  /** the body of its error answers (what a delivery failure must never store) */
  errorBody: string;
  close(): Promise<void>;
}

export async function startReceiver(answers: number[] = [200], host = NOTIFY_PEER_HOST): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const r: TestReceiver = { url: '', requests, answers, errorBody: '{"error":"try again"}', close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = r.answers[Math.min(requests.length, r.answers.length - 1)];
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status < 300 ? '{"ok":true}' : r.errorBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  r.url = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
  r.close = () => new Promise<void>((done) => server.close(() => done()));
  return r;
}
