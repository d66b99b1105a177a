// window.mjs computes, with DuckDB over an outlast dataset, what a
// researcher would without outlast to see each run of a campaign: its
// token-weighted prefix-cache hit ratio in 5-minute windows, and the
// number of sessions in the system minute by minute (a running sum over
// arrivals and ends, per run). make bench times it beside outlast report
// and outlast compare on the same dataset. It prints the row counts.
// Usage: node window.mjs THREADS DATASET
import { DuckDBInstance } from '@duckdb/node-api';

const [threads, dataset] = process.argv.slice(2);
if (!dataset) {
  console.error('usage: node window.mjs THREADS DATASET');
  process.exit(2);
}
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
const table = (t) => `read_parquet(${quote(dataset + '/' + t + '/**/*.parquet')}, hive_partitioning=true)`;
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
await conn.run(`SET threads=${Number(threads)}`);
await conn.run(`CREATE TABLE hit AS
  SELECT run, floor(done_s / 300) AS w, sum(cached_tokens) / sum(prompt_tokens) AS hit_ratio, count(*) AS turns
  FROM ${table('turns')} WHERE status = 'ok'
  GROUP BY run, w`);
await conn.run(`CREATE TABLE population AS
  WITH steps AS (
    SELECT run, floor(arrive_s / 60) AS m, 1 AS d FROM ${table('sessions')}
    UNION ALL
    SELECT run, floor(end_s / 60) AS m, -1 AS d FROM ${table('sessions')} WHERE end_s IS NOT NULL
  ), per_minute AS (SELECT run, m, sum(d) AS d FROM steps GROUP BY run, m)
  SELECT run, m, sum(d) OVER (PARTITION BY run ORDER BY m) AS sessions FROM per_minute`);
const reader = await conn.runAndReadAll(`SELECT (SELECT count(*) FROM hit) AS hit_rows, (SELECT count(*) FROM population) AS population_rows`);
const [row] = reader.getRowObjectsJS();
console.log(JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? Number(v) : v)));
