import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseForm, parseFormFile } from './form.js';

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
    const { type, body } = multipart([
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['tags', 'a'],
      ['tags', 'b'],
    ]);
    const form = await parseForm(type, body);
    expect(JSON.stringify(form.fields)).toBe('{"__proto__":"p","constructor":"c","tags":["a","b"]}');
  });

  describe('of a body kept in a file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'form-file-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const inFile = (name: string, body: Buffer) => {
      const file = path.join(dir, name);
      writeFileSync(file, body);
      return file;
    };

    it('multipart: streamed from the file, with the same fields, files and bytes as parsed from memory', async () => {
      const b = 'BoUnDaRy';
      const upload = Buffer.alloc(200_000);
      for (let i = 0; i < upload.length; i++) upload[i] = (i * 7) % 256;
      const body = Buffer.concat([
        Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n`),
        Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="up"; filename="x.bin"\r\nContent-Type: image/png\r\n\r\n`),
        upload,
        Buffer.from(`\r\n--${b}\r\nContent-Disposition: form-data; name="a"\r\n\r\n2\r\n--${b}--\r\n`),
      ]);
      const type = `multipart/form-data; boundary=${b}`;
      const fromFile = await parseFormFile(type, inFile('multi', body), body.length);
      const fromMemory = await parseForm(type, body);
      expect(fromFile.fields).toEqual({ a: ['1', '2'] });
      expect(fromFile.read).toBeUndefined();
      const [meta] = fromFile.files;
      expect(meta).toMatchObject({ name: 'up', filename: 'x.bin', size: upload.length, content_type: 'image/png' });
      expect(fromFile.data!.get(meta!.id)!.equals(upload)).toBe(true);
      expect(fromFile.files.map(({ id: _id, ...rest }) => rest)).toEqual(fromMemory.files.map(({ id: _id, ...rest }) => rest));
      // The part was spooled beside the body and is gone once read.
      expect(readdirSync(dir)).toEqual(['multi']);
    });

    it('urlencoded: read whole, and the bytes read are given back for the record', async () => {
      const body = Buffer.from('x=1&y=%C3%A9&x=2');
      const form = await parseFormFile('application/x-www-form-urlencoded', inFile('url', body), body.length);
      expect(form.fields).toEqual({ x: ['1', '2'], y: 'é' });
      expect(form.read!.equals(body)).toBe(true);
    });

    it('other types, a body that does not parse and a file that cannot be read: no fields', async () => {
      expect(await parseFormFile('application/json', inFile('json', Buffer.from('{}')), 2)).toEqual({ fields: null, files: [] });
      const bad = Buffer.from('--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated');
      // As from memory: a form cut short is no form.
      expect(await parseFormFile('multipart/form-data; boundary=B', inFile('bad', bad), bad.length)).toEqual({ fields: null, files: [] });
      expect(await parseForm('multipart/form-data; boundary=B', bad)).toEqual({ fields: null, files: [] });
      const cutInPart = Buffer.from('--B\r\nContent-Disposition: form-data; name="f"; filename="f.bin"\r\n\r\nunterminated');
      expect(await parseFormFile('multipart/form-data; boundary=B', inFile('cut', cutInPart), cutInPart.length)).toEqual({ fields: null, files: [] });
      expect(readdirSync(dir).filter((f) => f.includes('.part'))).toEqual([]);
      expect(await parseForm('multipart/form-data; boundary=B', cutInPart)).toEqual({ fields: null, files: [] });
      expect(await parseFormFile('multipart/form-data; boundary=B', path.join(dir, 'missing'), 10)).toEqual({ fields: null, files: [] });
    });
  });
});
