// The version of the command line: the service's, from the repository's package.json (the
// client package carries the same version, which test/client-package.test.ts checks).
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../core/util/paths.js';

export function version(): string {
  return (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}
