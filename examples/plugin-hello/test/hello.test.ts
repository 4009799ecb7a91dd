// The example plugin tested the way its author would, outside the service: the factory called with
// the SDK (as the loader calls it), its register() given a container, its action run with runAction
// from @capture/sdk/testing.
import { describe, expect, it } from 'vitest';
import * as sdk from '@capture/sdk';
import { rootContainer, runAction, validateParams } from '@capture/sdk/testing';
import hello from '../index.js';

describe('examples/plugin-hello', () => {
  const plugin = hello(sdk);
  const container = rootContainer.createChildContainer();
  plugin.register?.(container);
  const definition = plugin.actions.find((a) => a.type === 'hello')!;

  it('can be unit-tested with runAction like a built-in one', async () => {
    const r = await runAction(definition, { respond: 'true', variable_name: '$greeting$' }, { container });
    expect(r.vars).toEqual({ greeting: 'Hello, world!' });
    expect(r.response.content).toBe('Hello, world!');
    expect(() => validateParams(definition, { name: '' })).toThrow(/parameters\.name/);
  });
});
