import { describe, expect, it, vi } from 'vitest';
import { defineAction, z } from '@capture/sdk';
import { headerLines } from '@capture/sdk/headers';
import { stepParams } from '@capture/sdk/runner';
import { templateValue } from '@capture/sdk/runner';

const freeze = <T>(v: T): T => {
  if (v && typeof v === 'object') {
    Object.freeze(v);
    for (const x of Object.values(v)) freeze(x);
  }
  return v;
};

function action() {
  const schema = z.object({ text: z.string(), name: z.string(), headers: headerLines().optional(), list: z.array(z.string()).default([]) });
  const parse = vi.spyOn(schema, 'safeParse');
  const def = defineAction({ type: 't', title: 'T', category: 'test', description: 'test', parameters: schema, untemplated: ['name'], execute() {} });
  return { def, parse };
}

const resolver = (vars: Record<string, string>) => (name: string) => vars[name];

describe('stepParams', () => {
  it('gives what templating then validating gives, and validates a frozen step again only when its texts change', () => {
    const { def, parse } = action();
    const raw = freeze({ text: 'hi $who$', name: '$kept$', headers: 'X-A: $who$', list: ['a', '$who$'] });
    const expected = (who: string) => def.parameters.parse(templateValue(raw, resolver({ who }), ['name'], ['headers']));
    const first = stepParams(def, raw, resolver({ who: 'bob' }));
    expect(first).toEqual({ success: true, data: expected('bob') });
    parse.mockClear();
    const again = stepParams(def, raw, resolver({ who: 'bob' }));
    expect(parse).not.toHaveBeenCalled();
    expect(again).toEqual(first);
    // Kept results are frozen: an action cannot change them for the next run.
    expect(again.success && Object.isFrozen(again.data.list)).toBe(true);
    const other = stepParams(def, raw, resolver({ who: 'ann\nX-Evil: 1' }));
    expect(parse).toHaveBeenCalledTimes(1);
    expect(other).toEqual({ success: true, data: expected('ann\nX-Evil: 1') });
  });

  it('validates parameters that are not frozen on every run, and reports the first issue', () => {
    const { def, parse } = action();
    const raw = { text: 'x', name: 'n' };
    stepParams(def, raw, resolver({}));
    stepParams(def, raw, resolver({}));
    expect(parse).toHaveBeenCalledTimes(2);
    const bad = stepParams(def, freeze({ text: 5, name: 'n' }), resolver({}));
    expect(bad).toMatchObject({ success: false, path: ['text'] });
  });
});
