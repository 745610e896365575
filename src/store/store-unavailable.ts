// The one place that decides whether a store error means "the store cannot serve right now"
// (→ 503 SERVICE_UNAVAILABLE, a retry later may succeed) rather than a bug (→ 500). Driver
// errors are recognised by code where drivers give one, else by message.

// Node socket errors; PostgreSQL: 57P01-57P03 admin/crash shutdown, cannot connect now; 53xxx
// insufficient resources (too many connections, disk full, out of memory); 08xxx connection
// exceptions; 40001/40P01 serialization failure / deadlock (a retry succeeds).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '40001',
  '40P01',
]);
const UNAVAILABLE_CODE_CLASSES = ['08', '53'];

// `pg` messages for a connection that died under a query, or one reused after it died
// (a ROLLBACK after the backend was terminated fails with "... not queryable").
const CONNECTION_LOST = new RegExp(
  'Connection terminated|not queryable|connection timeout|timeout exceeded when trying to connect|' +
    'Cannot use a pool after calling end|driver has already been destroyed',
  'i',
);

// node:sqlite: SQLITE_BUSY (5), SQLITE_LOCKED (6), SQLITE_IOERR (10), SQLITE_FULL (13),
// SQLITE_CANTOPEN (14); messages as SQLite words them.
const SQLITE_UNAVAILABLE_ERRCODES = new Set([5, 6, 10, 13, 14]);
// A closed connection (the store shut down or gone): node:sqlite says "database is not open", and a
// statement cached on it "statement has been finalized".
const SQLITE_UNAVAILABLE = new RegExp(
  'database is locked|database connection is not open|database is not open|statement has been finalized|' +
    'SQLITE_BUSY|database or disk is full|disk I\\/O error|unable to open database file',
  'i',
);

/** True for errors that mean "the store cannot be reached or written right now" (→ 503), not a bug. */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (UNAVAILABLE_CODES.has(code) || UNAVAILABLE_CODE_CLASSES.some((c) => code.startsWith(c)))
  )
    return true;
  const errcode = (error as { errcode?: unknown }).errcode;
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && SQLITE_UNAVAILABLE_ERRCODES.has(errcode & 0xff))
    return true;
  return isConnectionLost(error) || SQLITE_UNAVAILABLE.test(error.message);
}

/** PostgreSQL: the connection under this error is dead and must not go back to the pool. */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (code.startsWith('57P') || code.startsWith('08') || code === 'ECONNRESET' || code === 'EPIPE')
  )
    return true;
  return CONNECTION_LOST.test(error.message);
}
