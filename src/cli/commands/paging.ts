// Keyset paging shared by the CLI's list commands: `--limit`, `--cursor` and `next_cursor`, the
// last printed as `<created_at ms>.<id>` of the page's last row.
import { UsageError } from './context.ts';

const MAX_LIMIT = 10_000;

export type PageCursor = { createdAt: number; id: string };

export function parseLimit(value: string | undefined): number {
  const limit = value === undefined ? 100 : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}`);
  return limit;
}

/** `<created_at ms>.<idPrefix><id>`, as printed in next_cursor by `command`. */
export function parseCursor(text: string | undefined, idPrefix: string, command: string): PageCursor | undefined {
  if (text === undefined) return undefined;
  const match = new RegExp(`^(\\d{1,16})\\.(${idPrefix}[A-Za-z0-9_-]{1,64})$`).exec(text);
  if (!match) throw new UsageError(`--cursor must be a next_cursor value printed by an earlier ${command}`);
  return { createdAt: Number(match[1]), id: match[2]! };
}

/** The rows of a page fetched with `limit + 1` (one more tells whether another page follows), and its next cursor. */
export function pageOf<T extends PageCursor>(fetched: T[], limit: number): { rows: T[]; nextCursor: string | null } {
  const rows = fetched.slice(0, limit);
  const last = rows.at(-1);
  return { rows, nextCursor: fetched.length > limit && last ? `${last.createdAt}.${last.id}` : null };
}
