// The account's hosted databases for the action editor: the list the Database action's
// `database_id` picks from, and a database's tables for the statement's SQL typeahead. Fetched once
// per page load (a changed table shows after a reload); nothing is asked where Databases are off.
import { useEffect, useState } from 'preact/hooks';
import { call, enc, serverConfig } from '../api';
import type { SqlTable } from './sql-words';

export interface HostedDatabase {
  id: string;
  name: string;
}

let list: Promise<HostedDatabase[]> | undefined;
const tables = new Map<string, Promise<SqlTable[]>>();

function hostedDatabases(): Promise<HostedDatabase[]> {
  list ??= serverConfig()
    .then((c) => (c.databases === false ? { data: [] } : call<{ data: HostedDatabase[] }>('GET', '/databases?per_page=100')))
    .then((p) => p.data.map((d) => ({ id: d.id, name: d.name })))
    .catch(() => []);
  return list;
}

function databaseTables(id: string): Promise<SqlTable[]> {
  let t = tables.get(id);
  if (!t) {
    t = call<{ data: SqlTable[] }>('GET', `/databases/${enc(id)}/tables`).then(
      (r) => r.data,
      () => [],
    );
    tables.set(id, t);
  }
  return t;
}

/** The account's databases (null while loading). */
export function useHostedDatabases(): HostedDatabase[] | null {
  const [dbs, setDbs] = useState<HostedDatabase[] | null>(null);
  useEffect(() => void hostedDatabases().then(setDbs), []);
  return dbs;
}

/** The tables of the database named by `idOrName` (its ID or name), [] when there is none or it is a variable. */
export function useDatabaseTables(idOrName: string | undefined): SqlTable[] {
  const [out, setOut] = useState<SqlTable[]>([]);
  useEffect(() => {
    setOut([]);
    if (!idOrName) return;
    let live = true;
    void hostedDatabases()
      .then((dbs) => dbs.find((d) => d.id === idOrName || d.name === idOrName))
      .then((db) => (db ? databaseTables(db.id) : []))
      .then((t) => live && setOut(t));
    return () => {
      live = false;
    };
  }, [idOrName]);
  return out;
}
