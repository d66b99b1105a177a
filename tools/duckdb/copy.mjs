// copy.mjs converts one JSONL file to zstd Parquet with DuckDB, the way a
// researcher would without outlast; make bench times it against
// outlast ingest on the same file.
// Usage: node copy.mjs THREADS IN.jsonl OUT.parquet
import { DuckDBInstance } from '@duckdb/node-api';

const [threads, input, output] = process.argv.slice(2);
if (!output) {
  console.error('usage: node copy.mjs THREADS IN.jsonl OUT.parquet');
  process.exit(2);
}
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run(`SET threads=${Number(threads)}`);
await conn.run(`COPY (SELECT * FROM read_json(${quote(input)})) TO ${quote(output)} (FORMAT parquet, COMPRESSION zstd)`);
