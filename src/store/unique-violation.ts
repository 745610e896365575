// Recognising a UNIQUE constraint refusal (an idempotent race lost), on either database.
/** A UNIQUE constraint refused the write (PostgreSQL 23505; SQLite's constraint message). */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || /UNIQUE constraint failed/i.test(error.message);
}
