// The loader hook of module-trace.mjs: appends the URL of every resolved module to MODULE_TRACE_FILE.
import { appendFileSync } from 'node:fs';

const file = process.env.MODULE_TRACE_FILE;

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (file) appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
