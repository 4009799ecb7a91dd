import { describe, expect, it } from 'vitest';
import { createSealer } from '../auth/sealing.js';
import { ValidationError } from '../errors.js';
import { defineAction, optionalText, secret, z } from '@capture/sdk';
import { ActionRegistry } from './registry.js';
import { ParameterSecrets, SECRET_MARKER, secretPaths } from './secret-params.js';

const login = defineAction({
  type: 'login',
  title: 'Login',
  category: 'test',
  description: 'Has secrets at the top, in a nullable group and in a list.',
  parameters: z.object({
    user: z.string(),
    password: secret(z.string().min(1)).describe('The password'),
    auth: z.preprocess((v) => v, z.object({ token: secret(optionalText()) }).nullish()),
    keys: z.array(z.object({ name: z.string(), value: secret(z.string()) })).optional(),
  }),
  execute() {},
});

function setup(key = 'key-one') {
  const registry = new ActionRegistry();
  registry.addAll('test', [login]);
  return new ParameterSecrets(registry, createSealer(key));
}

const params = {
  user: 'bob',
  password: 'pw',
  auth: { token: 'tk' },
  keys: [
    { name: 'a', value: 'v1' },
    { name: 'b', value: '' },
  ],
};

describe('secret()', () => {
  it('marks the field writeOnly in the JSON Schema, and finds every marked place', () => {
    const schema = z.toJSONSchema(login.parameters, { io: 'input', unrepresentable: 'any' });
    expect((schema.properties as Record<string, Record<string, unknown>>).password).toMatchObject({ writeOnly: true, description: 'The password' });
    expect(secretPaths(schema)).toEqual([['password'], ['auth', 'token'], ['keys', '*', 'value']]);
  });
});

describe('ParameterSecrets', () => {
  it('seals every set secret, masks it, and opens it back', () => {
    const secrets = setup();
    const sealed = secrets.seal('login', params);
    expect(JSON.stringify(sealed)).not.toMatch(/"pw"|"tk"|"v1"/);
    expect(sealed).toMatchObject({ user: 'bob', keys: [{ name: 'a' }, { name: 'b', value: '' }] });
    expect(secrets.seal('login', sealed)).toEqual(sealed);
    expect(secrets.mask('login', sealed)).toEqual({
      user: 'bob',
      password: SECRET_MARKER,
      auth: { token: SECRET_MARKER },
      keys: [
        { name: 'a', value: SECRET_MARKER },
        { name: 'b', value: '' },
      ],
    });
    expect(secrets.open('login', sealed)).toEqual(params);
    expect(secrets.count('login', sealed)).toBe(3);
    expect(params.password).toBe('pw');
  });

  it('opens plain values stored before sealing as they are', () => {
    expect(setup().open('login', params)).toEqual(params);
  });

  it('replaces the marker with the stored secret of a step of the same type, else 422 naming the field', () => {
    const secrets = setup();
    const stored = { type: 'login', parameters: secrets.seal('login', params) };
    expect(secrets.resolve('login', { ...params, password: SECRET_MARKER }, stored).password).toBe('pw');
    expect(() => secrets.resolve('login', { ...params, password: SECRET_MARKER }, { ...stored, type: 'other' })).toThrow(ValidationError);
    try {
      secrets.resolve('login', { ...params, auth: { token: SECRET_MARKER } });
      expect.unreachable();
    } catch (e) {
      expect((e as ValidationError).errors).toHaveProperty(['parameters.auth.token']);
    }
  });

  it('refuses a value sent already sealed', () => {
    const secrets = setup();
    const sealed = secrets.seal('login', params).password;
    expect(() => secrets.resolve('login', { ...params, password: sealed })).toThrow(/must not be a sealed value/);
  });

  it('fails to open a secret sealed under another key, saying so', () => {
    const sealed = setup('key-one').seal('login', params);
    expect(() => setup('key-two').open('login', sealed)).toThrow(/another SECRET_KEY/);
  });

  it('re-seals secrets of an older key under the current one, leaves current and unknown-key ones, and says which failed', () => {
    const old = setup('key-one').seal('login', params);
    const registry = new ActionRegistry();
    registry.addAll('test', [login]);
    const rotated = new ParameterSecrets(registry, createSealer('key-two', ['key-one']));
    const foreign = setup('key-three').seal('login', params).password;
    const r = rotated.reseal('login', { ...old, password: foreign });
    expect(r.outcomes).toEqual([{ status: 'failed', field: 'parameters.password', reason: expect.stringMatching(/another SECRET_KEY/) }, { status: 'resealed' }, { status: 'resealed' }]);
    expect(r.parameters.password).toBe(foreign);
    expect(setup('key-two').open('login', { ...r.parameters, password: 'plain' })).toMatchObject({ auth: { token: 'tk' }, keys: [{ value: 'v1' }, { value: '' }] });
    // Run again: nothing left to do.
    expect(rotated.reseal('login', r.parameters).outcomes.map((o) => o.status)).toEqual(['failed', 'current', 'current']);
    expect(rotated.reseal('login', r.parameters).parameters).toEqual(r.parameters);
  });

  it('reports sealed values of an action type that is not loaded, since its secrets cannot be found', () => {
    const sealed = setup().seal('login', params);
    expect(setup().reseal('gone', { deep: [sealed] }).outcomes).toEqual([{ status: 'failed', field: 'parameters', reason: expect.stringMatching(/"gone" is not loaded/) }]);
    expect(setup().reseal('gone', { plain: 'x' }).outcomes).toEqual([]);
  });
});
