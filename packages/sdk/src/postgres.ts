// How PostgreSQL values become JavaScript ones, for every use of the `pg` driver (the database
// action and the hosted databases), so a query answers the same wherever it runs.
import type pg from 'pg';

// Dates and times as the server writes them (no time zone conversion), bytea as its `\x` hex text,
// int8 as a number when it fits (text otherwise).
const AS_TEXT = new Set([17, 1082, 1083, 1114, 1184, 1266]); // bytea, date, time, timestamp, timestamptz, timetz
const INT8 = 20;

/** The `types` option of a `pg` client; `driver` is the loaded `pg` module (the SDK does not load it). */
export function postgresTypes(driver: Pick<typeof pg, 'types'>): pg.CustomTypesConfig {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (format !== 'binary') {
        if (AS_TEXT.has(oid)) return (v: string) => v;
        if (oid === INT8) return (v: string) => (Number.isSafeInteger(Number(v)) ? Number(v) : v);
      }
      return driver.types.getTypeParser(oid, format ?? 'text');
    },
  } as unknown as pg.CustomTypesConfig;
}
