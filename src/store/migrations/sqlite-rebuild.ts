// SQLite cannot drop a UNIQUE column constraint or change a CHECK in place (and the driver's
// defensive mode forbids editing sqlite_schema), so such a change rebuilds the table as SQLite's
// documentation describes (ALTER TABLE, "Making Other Kinds Of Table Schema Changes"): create
// the new table from the CURRENT definition with the edit applied, copy the rows, drop the old
// table, rename, and recreate its indexes and triggers. The definition is read back from the
// database rather than written out here, so columns other migrations added survive the rebuild.
import { sql, type Kysely } from 'kysely';

type SchemaRow = { type: string; name: string; sql: string };

/** Runs the rebuild with foreign keys off (as SQLite requires) and checks them afterwards. */
export async function rebuildSqliteTable(
  db: Kysely<any>,
  table: string,
  edit: (createSql: string) => string,
): Promise<void> {
  const query = sql<SchemaRow>`select type, name, sql from sqlite_schema where tbl_name = ${table} and sql is not null`;
  const rows = (await query.execute(db)).rows;
  const create = rows.find((r) => r.type === 'table');
  if (!create) throw new Error(`rebuild: no table ${table}`);
  const edited = edit(create.sql);
  if (edited === create.sql) throw new Error(`rebuild of ${table}: the edit changed nothing (unexpected definition)`);
  const temp = `${table}__rebuild`;
  const tempCreate = edited.replace(/^CREATE TABLE\s+("?)([A-Za-z_]+)\1/i, `CREATE TABLE "${temp}"`);
  if (tempCreate === edited) throw new Error(`rebuild of ${table}: cannot rename the definition`);
  const others = rows.filter((r) => r.type === 'index' || r.type === 'trigger');

  // The migrator holds its one connection for the whole migration, so a Kysely transaction here
  // would wait for it forever; the statements go to the one writer connection in order anyway.
  const run = (statement: string) => sql.raw(statement).execute(db);
  await run('PRAGMA foreign_keys = OFF');
  try {
    await run('BEGIN IMMEDIATE');
    try {
      // Renaming must not re-parse other tables' triggers that name this table while it is gone.
      await run('PRAGMA legacy_alter_table = ON');
      await run(tempCreate);
      await run(`INSERT INTO "${temp}" SELECT * FROM "${table}"`);
      await run(`DROP TABLE "${table}"`);
      await run(`ALTER TABLE "${temp}" RENAME TO "${table}"`);
      for (const other of others) await run(other.sql);
      await run('PRAGMA legacy_alter_table = OFF');
      const broken = (await run('PRAGMA foreign_key_check')).rows;
      if (broken.length > 0)
        throw new Error(`rebuild of ${table}: foreign keys broken: ${JSON.stringify(broken.slice(0, 3))}`);
      await run('COMMIT');
    } catch (error) {
      await run('ROLLBACK').catch(() => {});
      throw error;
    }
  } finally {
    await run('PRAGMA legacy_alter_table = OFF');
    await run('PRAGMA foreign_keys = ON');
  }
}

/** `text` with `from` replaced exactly once; throws when `from` is not there exactly once. */
export function replaceOnce(text: string, from: string | RegExp, to: string): string {
  const matches =
    typeof from === 'string'
      ? text.split(from).length - 1
      : (text.match(new RegExp(from.source, from.flags.includes('g') ? from.flags : `${from.flags}g`)) ?? []).length;
  if (matches !== 1) throw new Error(`schema edit: expected one ${String(from)}, found ${matches}`);
  return text.replace(from, to);
}
