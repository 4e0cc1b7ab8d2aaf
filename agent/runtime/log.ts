import { setting } from '#shared/config/read';
import { createLogger as createJsonLogger, type Level } from '#shared/log/logger';

/** The agent's log: the shared logger's JSON lines, stamped with the time, on stdout (rc.d/systemd keep them). */
export type Logger = (level: Level, msg: string, fields?: Record<string, unknown>) => void;

export function createLogger(base: Record<string, unknown> = {}, quietDebug = !setting('HM_AGENT_DEBUG')): Logger {
  const log = createJsonLogger({ base, time: true, minLevel: quietDebug ? 'info' : 'debug', write: (line) => process.stdout.write(`${line}\n`) });
  return (level, msg, fields) => log[level](msg, fields);
}
