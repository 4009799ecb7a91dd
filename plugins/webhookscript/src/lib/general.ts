// general.md: output and types.
import { Halt } from '../lang/errors.js';
import { repr, toText, typeName, type Value } from '../lang/values.js';
import type { Host, Library } from './host.js';

export function generalLibrary(host: Host): Library {
  const dump = (args: Value[]) => host.output(args.length ? args.map((v) => repr(v)).join('\n') : 'null');
  return {
    echo: (_c, args) => {
      host.output(args.map(toText).join(' '));
      return null;
    },
    print: (_c, args) => {
      host.output(args.map(toText).join(' '));
      return null;
    },
    dump: (_c, args) => {
      dump(args);
      return args[0] ?? null;
    },
    dd: (_c, args) => {
      dump(args);
      host.ctx.stop();
      throw new Halt();
    },
    type: (_c, args) => typeName(args[0] ?? null),
  };
}
