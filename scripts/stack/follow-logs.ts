import { closeSync, openSync, readSync, statSync, watchFile, unwatchFile } from 'node:fs';

/**
 * `npm start --verbose`: the agents' log files followed live, each line prefixed with its source, like
 * `tail -f` of several files. Reads only what was appended since the last look; a file not there yet is
 * picked up when it appears. Returns a function that stops following.
 */
export function followLogs(files: { label: string; path: string }[], write: (line: string) => void): () => void {
  const stops = files.map(({ label, path }) => {
    let offset = 0;
    let partial = '';
    const readNew = () => {
      let size: number;
      try {
        size = statSync(path).size;
      } catch {
        return;
      }
      if (size < offset) offset = 0; // truncated or replaced
      if (size === offset) return;
      const buf = Buffer.alloc(size - offset);
      const fd = openSync(path, 'r');
      try {
        readSync(fd, buf, 0, buf.length, offset);
      } finally {
        closeSync(fd);
      }
      offset = size;
      const lines = (partial + buf.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line) write(`[${label}] ${line}`);
    };
    readNew();
    watchFile(path, { interval: 500 }, readNew);
    return () => unwatchFile(path, readNew);
  });
  return () => {
    for (const stop of stops) stop();
  };
}
