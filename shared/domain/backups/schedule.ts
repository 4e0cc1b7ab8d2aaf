import { Cron } from 'croner';

/**
 * A backup job's schedule: standard 5-field cron (minute hour day-of-month month day-of-week) or a nickname
 * (`@hourly`, `@daily`, …), evaluated in UTC by croner. Six-field (seconds) patterns are refused: a job runs at
 * most once a minute.
 */
export const SCHEDULE_MAX = 100;

const compile = (expr: string) => new Cron(expr, { timezone: 'UTC', paused: true });

/** Why the expression is not a schedule, or undefined when it is one. */
export function scheduleProblem(expr: string): string | undefined {
  const text = expr.trim();
  if (!text) return 'must be a cron expression such as "*/5 * * * *" (minute hour day month weekday)';
  if (!text.startsWith('@') && text.split(/\s+/).length !== 5) return 'must have 5 fields: minute hour day-of-month month day-of-week';
  try {
    compile(text);
  } catch (e) {
    return `is not a valid cron expression: ${(e as Error).message.replace(/^CronPattern: /, '')}`;
  }
  if (!nextRunAfter(text, new Date())) return 'never fires';
  return undefined;
}

/** The first slot strictly after `from`, or null when the schedule never fires again. */
export function nextRunAfter(expr: string, from: Date): Date | null {
  return compile(expr.trim()).nextRun(from) ?? null;
}
