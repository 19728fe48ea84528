/** PostgreSQL unique_violation, as raised by both pg and PGlite (possibly wrapped by drizzle). */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: any = err; e; e = e.cause) if (e.code === '23505') return true;
  return false;
}
