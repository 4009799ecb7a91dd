import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { defineAction, integer, z } from '@capture/sdk';
import { ActionRegistry, DuplicateActionType } from './registry.js';

const make = (type: string, extra: Partial<Parameters<typeof defineAction>[0]> = {}) =>
  defineAction({
    type,
    title: type,
    category: 'test',
    description: `the ${type} action`,
    parameters: z.object({ mode: z.enum(['one', 'all']), count: integer().optional(), items: z.array(z.object({ v: z.string() })).optional() }),
    execute: () => {},
    ...extra,
  });

describe('ActionRegistry', () => {
  it('lists types with their JSON Schema', () => {
    const r = new ActionRegistry();
    r.addAll('p', [make('b_action'), make('a_action', { sets: ['x'] })]);
    const list = r.list();
    expect(list.map((t) => t.type)).toEqual(['a_action', 'b_action']);
    expect(list[0]).toMatchObject({ plugin: 'p', sets: ['x'], creatable: true, title: 'a_action' });
    expect(list[0].schema).toMatchObject({ type: 'object', required: ['mode'], properties: { mode: { enum: ['one', 'all'] } } });
  });

  it('refuses a duplicate type and adds none of that plugin', () => {
    const r = new ActionRegistry();
    r.addAll('first', [make('x')]);
    expect(() => r.addAll('second', [make('y'), make('x')])).toThrow(DuplicateActionType);
    expect(r.has('y')).toBe(false);
    expect(r.get('x')?.plugin).toBe('first');
  });

  it('validate names the field in a 422', () => {
    const r = new ActionRegistry();
    r.addAll('p', [make('x')]);
    const err = (() => {
      try {
        r.validate('x', { mode: 'many' });
      } catch (e) {
        return e as ValidationError;
      }
    })();
    expect(err).toBeInstanceOf(ValidationError);
    expect(err?.status).toBe(422);
    expect(Object.keys(err?.errors ?? {})).toEqual(['parameters.mode']);
    expect(err?.message).toMatch(/^parameters\.mode: /);
    expect(() => r.validate('x', {})).toThrow(/parameters\.mode: is required/);
    expect(() => r.validate('x', { mode: 'one', items: [{ v: 1 }] })).toThrow(/parameters\.items\.0\.v/);
  });

  it('refuses unknown and deprecated types', () => {
    const r = new ActionRegistry();
    r.addAll('p', [make('old', { creatable: false })]);
    expect(() => r.validate('nope', {})).toThrow(/Unknown action type "nope"/);
    expect(() => r.validate('old', { mode: 'one' })).toThrow(/deprecated/);
    expect(r.validate('old', { mode: 'one' }, { allowDeprecated: true })).toEqual({ mode: 'one' });
  });

  it('leaves fields holding variables to run time and returns the parameters unreplaced', () => {
    const r = new ActionRegistry();
    r.addAll('p', [make('x')]);
    expect(r.validate('x', { mode: '$mode$', count: '$n$' })).toEqual({ mode: '$mode$', count: '$n$' });
    expect(() => r.validate('x', { mode: 'one', count: 'ten' })).toThrow(/parameters\.count/);
  });

  it('parameters must be an object', () => {
    const r = new ActionRegistry();
    r.addAll('p', [make('x')]);
    expect(() => r.validate('x', [1])).toThrow(/parameters must be an object/);
  });
});
