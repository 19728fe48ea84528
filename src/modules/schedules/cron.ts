import cronParser from 'cron-parser';
import { invalidField } from '../../http/errors.js';

// Cron and time-zone checks and arithmetic, with the cron-parser pg-boss's scheduler uses.

export function checkTimezone(tz: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw invalidField('timezone', `timezone must be an IANA time zone such as "Europe/Berlin" (got "${tz}")`, tz);
  }
  return tz;
}

export function checkCron(cron: string, tz: string): string {
  const c = cron.trim().replace(/\s+/g, ' ');
  if (c.split(' ').length !== 5) throw invalidField('cron', 'cron must have 5 fields: minute hour day-of-month month day-of-week', cron);
  try {
    cronParser.parseExpression(c, { tz });
  } catch (err) {
    throw invalidField('cron', `cron is not valid: ${(err as Error).message}`, cron);
  }
  return c;
}

/** The first minute the cron names strictly after `from`. */
export function nextFiring(cron: string, tz: string, from: Date): Date {
  return cronParser.parseExpression(cron, { tz, currentDate: from }).next().toDate();
}

/** The latest minute the cron names at or before `at` (seconds 0). */
export function lastFiring(cron: string, tz: string, at: Date): Date {
  // cron-parser's prev() is strictly before its current date: start one second after `at`
  return cronParser.parseExpression(cron, { tz, currentDate: new Date(at.getTime() + 1000) }).prev().toDate();
}
