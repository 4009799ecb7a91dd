// The function library, assembled from the docs' categories.
import type { NativeFn } from '../lang/values.js';
import { arrayLibrary } from './array.js';
import { boolLibrary } from './bool.js';
import { databaseLibrary } from './database.js';
import { dateLibrary } from './date.js';
import { encodingLibrary } from './encoding.js';
import { filesLibrary } from './files.js';
import { flowLibrary } from './flow.js';
import { formatsLibrary } from './formats.js';
import { generalLibrary } from './general.js';
import type { Host } from './host.js';
import { mathLibrary } from './math.js';
import { networkLibrary } from './network.js';
import { regexes, regexLibrary } from './regex.js';
import { stringLibrary } from './string.js';
import { variablesLibrary } from './variables.js';

export function buildLibrary(host: Host): Map<string, NativeFn> {
  return new Map(
    Object.entries({
      ...generalLibrary(host),
      ...variablesLibrary(host),
      ...flowLibrary(host),
      ...boolLibrary(),
      ...mathLibrary(),
      ...stringLibrary(regexes),
      ...encodingLibrary(),
      ...formatsLibrary(host),
      ...regexLibrary(),
      ...arrayLibrary(),
      ...dateLibrary(host),
      ...networkLibrary(host),
      ...filesLibrary(host),
      ...databaseLibrary(host),
    }),
  );
}
