/** The agent's log: one JSON object per line on stdout (rc.d/systemd send it to a file or the journal). */
type Level = 'debug' | 'info' | 'warn' | 'error';

export type Logger = (level: Level, msg: string, fields?: Record<string, unknown>) => void;

export function createLogger(base: Record<string, unknown> = {}, quietDebug = !process.env.HM_AGENT_DEBUG): Logger {
  return (level, msg, fields = {}) => {
    if (level === 'debug' && quietDebug) return;
    process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...fields })}\n`);
  };
}
