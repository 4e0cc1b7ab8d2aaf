/** The part of ssh2 (node-ssh's SSH implementation, installed with it) that the local peer server uses. */
declare module 'ssh2' {
  import type { EventEmitter } from 'node:events';
  import type { Duplex, Writable } from 'node:stream';

  export interface ParsedKey {
    type: string;
    getPublicSSH(): Buffer;
    verify(data: Buffer, signature: Buffer, hashAlgo?: string): boolean | Error;
  }
  export interface AuthContext {
    method: string;
    username: string;
    key?: { algo: string; data: Buffer };
    signature?: Buffer;
    blob?: Buffer;
    hashAlgo?: string;
    accept(): void;
    reject(methods?: string[]): void;
  }
  export interface ServerChannel extends Duplex {
    stderr: Writable;
    exit(code: number): void;
  }
  export interface Session extends EventEmitter {
    on(event: 'exec', cb: (accept: () => ServerChannel, reject: () => void, info: { command: string }) => void): this;
    on(event: string, cb: (accept: () => unknown, reject: () => void) => void): this;
  }
  export interface Connection extends EventEmitter {
    on(event: 'authentication', cb: (ctx: AuthContext) => void): this;
    on(event: 'ready' | 'close', cb: () => void): this;
    on(event: 'error', cb: (err: Error) => void): this;
    on(event: 'session', cb: (accept: () => Session, reject: () => void) => void): this;
    end(): void;
  }
  export class Server extends EventEmitter {
    constructor(config: { hostKeys: Array<string | Buffer> }, onConnection: (client: Connection) => void);
    listen(port: number, host: string, cb?: () => void): this;
    close(cb?: () => void): this;
    address(): { port: number };
  }
  export const utils: {
    generateKeyPairSync(type: 'ed25519', opts?: { comment?: string }): { private: string; public: string };
    parseKey(data: string | Buffer): ParsedKey | Error;
  };
  const ssh2: { Server: typeof Server; utils: typeof utils };
  export default ssh2;
}
