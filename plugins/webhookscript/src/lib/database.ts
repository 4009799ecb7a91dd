// database.md: db(name or id) gives a function that runs one statement on the account's hosted
// database (ctx.services.databases) and answers ["result": rows, "error": ..., "rows": n, "time": ms].
import { bytesText } from '@capture/sdk/bytes';
import { WsArray, WsFunction, fromJson, toPlain } from '../lang/values.js';
import { arg, str, type Host, type Library } from './host.js';

/** A cell as a script value: dates as ISO text, bytes as text, big integers as text. */
function cell(v: unknown): unknown {
  if (v instanceof Date) return v.toISOString();
  if (Buffer.isBuffer(v)) return bytesText(v);
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(cell);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cell(x)]));
  return v;
}

export function databaseLibrary(host: Host): Library {
  return {
    db: (_c, a) => {
      const id = str(a, 0);
      return new WsFunction(`db(${JSON.stringify(id)})`, null, null, async (_call, q) => {
        const params = q.length > 1 && arg(q, 1) !== null ? toPlain(arg(q, 1)) : undefined;
        const r = await host.wait(host.ctx.services.databases.query(id, str(q, 0), params));
        return WsArray.entries([
          ['result', r.result === null ? null : fromJson(r.result.map(cell))],
          ['error', r.error],
          ['rows', r.rows],
          ['time', r.time],
        ]);
      });
    },
  };
}
