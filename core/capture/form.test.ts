import { describe, expect, it } from 'vitest';
import { parseForm } from './form.js';

const multipart = (parts: Array<[string, string]>) => {
  const b = 'XyZ';
  const body = parts.map(([n, v]) => `--${b}\r\nContent-Disposition: form-data; name="${n}"\r\n\r\n${v}\r\n`).join('') + `--${b}--\r\n`;
  return { type: `multipart/form-data; boundary=${b}`, body: Buffer.from(body) };
};

describe('form fields', () => {
  it('keeps fields named __proto__ and constructor as data (urlencoded)', async () => {
    const form = await parseForm('application/x-www-form-urlencoded', Buffer.from('__proto__=x&constructor=y&constructor=z&a=1'));
    expect(JSON.stringify(form.fields)).toBe('{"__proto__":"x","constructor":["y","z"],"a":"1"}');
    expect(Object.getPrototypeOf(form.fields)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('keeps fields named __proto__ and constructor as data (multipart)', async () => {
    const { type, body } = multipart([['__proto__', 'p'], ['constructor', 'c'], ['tags', 'a'], ['tags', 'b']]);
    const form = await parseForm(type, body);
    expect(JSON.stringify(form.fields)).toBe('{"__proto__":"p","constructor":"c","tags":["a","b"]}');
  });
});
