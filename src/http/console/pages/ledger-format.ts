// Ledger amounts as the CLI prints them: exact, 4 decimals (postings can carry fractions of a
// satang from fee rounding), never through a float.
import { formatMinor, groupThousands } from '../../../domain/money.ts';

export function ledgerAmount(minor: bigint, currency: string): string {
  return `${groupThousands(formatMinor(minor, 4))} ${currency}`;
}

/** For CSV: the bare exact decimal (no grouping, no currency). */
export function ledgerDecimal(minor: bigint): string {
  return formatMinor(minor, 4);
}
