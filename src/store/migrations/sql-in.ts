import { sql } from 'kysely';

/** A CHECK (column IN (...)) expression that both dialects understand. */
export function sqlIn(column: string, values: string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;
}
