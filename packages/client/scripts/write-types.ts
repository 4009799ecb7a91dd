// Writes src/api-types.ts from the OpenAPI document: the service's own (core/http/openapi.ts, the
// default) or a running server's (`--from http://host:port`).
//   npm run types -w @capture/client [-- --from <url>]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiToTypes, type OpenApiDocument } from './openapi-to-ts.js';

export const TYPES_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'api-types.ts');

/** The document the repository's service serves (no server needed). */
export async function serviceDocument(): Promise<OpenApiDocument> {
  const { openApiDocument } = await import('../../../core/http/openapi.js');
  return openApiDocument(null) as unknown as OpenApiDocument;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--from');
  let doc: OpenApiDocument;
  if (at > 0) {
    const res = await fetch(new URL('/openapi.json', process.argv[at + 1]));
    if (!res.ok) throw new Error(`GET /openapi.json: ${res.status}`);
    doc = (await res.json()) as OpenApiDocument;
  } else doc = await serviceDocument();
  fs.writeFileSync(TYPES_FILE, openApiToTypes(doc));
  console.log('wrote', path.relative(process.cwd(), TYPES_FILE));
}
