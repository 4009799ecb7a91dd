// Variables live in the scope of the script or of the function call they are assigned in
// (blocks and loops have none, as in PHP). Functions read the scopes they were defined in.
import type { Value } from './values.js';

export class Scope {
  readonly vars = new Map<string, Value>();

  constructor(readonly parent: Scope | null) {}

  lookup(name: string): Value | undefined {
    for (let s: Scope | null = this; s; s = s.parent) {
      const v = s.vars.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  set(name: string, value: Value): void {
    this.vars.set(name, value);
  }
}
