// query.mjs runs one SQL statement in an in-memory DuckDB and prints the
// rows as JSON lines (bigints as numbers), for tests and benchmarks.
// Usage: node query.mjs "SELECT ..."
import { DuckDBInstance } from '@duckdb/node-api';

const sql = process.argv[2];
if (!sql) {
  console.error('usage: node query.mjs SQL');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const reader = await conn.runAndReadAll(sql);
for (const row of reader.getRowObjectsJS()) {
  console.log(JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? Number(v) : v)));
}
