// The sandbox's Buffer (a global, and require('buffer')): Node's behaviour for the common methods,
// checked against Node's own Buffer on the host.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxPool } from './index.js';
import type { HostCalls, SandboxPool } from './index.js';

/** Answers each fetch with the body it was sent. */
const host: HostCalls = { fetch: async (req) => ({ status: 200, headers: {}, body: `got ${req.body}` }), globalGet: async () => null, globalSet: async () => {} };

describe('sandbox Buffer', () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = createSandboxPool({ size: 1 });
    await pool.ready();
  });
  afterAll(() => pool.close());

  const run = async (script: string) => {
    const r = await pool.run({ script, variables: {}, request: {}, timeoutMs: 10_000 }, host);
    expect(r.error).toBeNull();
    return r.output;
  };

  it("runs the docs' examples: new Buffer(10) and Buffer.from(...)", async () => {
    const out = await run(`const b = new Buffer(10);
      echo(b.length, Buffer.isBuffer(b), b.toString('hex'));
      echo(Buffer.from('I love Webhook.site').toString('base64'));
      echo(Buffer.from('SSBsb3ZlIFdlYmhvb2suc2l0ZQ==', 'base64').toString());
      var FormData = require('form-data');
      var form = new FormData();
      form.append('my_field', 'my value');
      form.append('my_buffer', new Buffer(10));
      echo(form.getBuffer().includes('\\0\\0\\0\\0\\0\\0\\0\\0\\0\\0'));
      echo(await (await fetch('http://example.test', { method: 'POST', body: Buffer.from('héllo') })).text());
      echo((await require('axios').post('http://example.test', Buffer.from('bytes'))).data);`);
    expect(out).toEqual(['10 true 00000000000000000000', Buffer.from('I love Webhook.site').toString('base64'), 'I love Webhook.site', 'true', 'got héllo', 'got bytes']);
  });

  it('converts between encodings like Node', async () => {
    const text = 'héllo wörld ✓ 😀';
    const out = await run(`const s = ${JSON.stringify(text)};
      const b = Buffer.from(s);
      echo(b.length, Buffer.byteLength(s), b.toString('hex'));
      echo(b.toString('base64'), b.toString('base64url'), b.toString('latin1').length);
      echo(Buffer.from(b.toString('hex'), 'hex').toString('utf8') === s, Buffer.from(b.toString('base64url'), 'base64url').equals(b));
      echo(Buffer.from([104, 105, 256 + 33]).toString(), Buffer.from('hi', 'utf16le').toString('hex'), Buffer.from('ÿ', 'latin1').toString('hex'));
      echo(Buffer.from([0xe2, 0x82]).toString(), JSON.stringify(Buffer.from('ab')));
      echo(JSON.stringify(Buffer.from([0xed, 0xa0, 0x80, 0xf0, 0x28, 0xc3, 0x41, 0xff, 0xf4, 0x90, 0x80, 0x80]).toString()));`);
    const b = Buffer.from(text);
    expect(out).toEqual([
      `${b.length} ${Buffer.byteLength(text)} ${b.toString('hex')}`,
      `${b.toString('base64')} ${b.toString('base64url')} ${b.toString('latin1').length}`,
      'true true',
      `${Buffer.from([104, 105, 256 + 33]).toString()} ${Buffer.from('hi', 'utf16le').toString('hex')} ${Buffer.from('ÿ', 'latin1').toString('hex')}`,
      `${Buffer.from([0xe2, 0x82]).toString()} ${JSON.stringify(Buffer.from('ab'))}`,
      JSON.stringify(Buffer.from([0xed, 0xa0, 0x80, 0xf0, 0x28, 0xc3, 0x41, 0xff, 0xf4, 0x90, 0x80, 0x80]).toString()),
    ]);
  });

  it('concat, slice, alloc with fill, compare, indexOf, write, copy, and the integer readers/writers', async () => {
    const out = await run(`const { Buffer: B } = require('buffer');
      echo(B === Buffer);
      const c = Buffer.concat([Buffer.from('ab'), Buffer.from('cd'), Buffer.from('ef')], 5);
      echo(c.toString(), c.slice(1, 3).toString(), c.subarray(2).toString(), Buffer.isBuffer(c.slice(1)));
      echo(Buffer.alloc(5, 'ab').toString(), Buffer.alloc(3, 7).toString('hex'), Buffer.compare(Buffer.from('a'), Buffer.from('b')));
      echo(c.indexOf('cd'), c.includes('zz'), c.indexOf(0x65));
      const w = Buffer.alloc(8);
      echo(w.write('hey', 2), w.toString('hex'));
      const t = Buffer.alloc(4); c.copy(t, 1, 0, 2); echo(t.toString('hex'));
      const n = Buffer.alloc(8); n.writeUInt32BE(0xdeadbeef, 0); n.writeInt16LE(-2, 4); n.writeUInt8(255, 7);
      echo(n.toString('hex'), n.readUInt32BE(0), n.readInt16LE(4), n.readUInt16LE(4), n.readUInt8(7));
      try { n.readUInt32LE(6); } catch (e) { echo(e.name); }
      try { Buffer.from(5); } catch (e) { echo(e.name); }`);
    const n = Buffer.alloc(8);
    n.writeUInt32BE(0xdeadbeef, 0);
    n.writeInt16LE(-2, 4);
    n.writeUInt8(255, 7);
    expect(out).toEqual([
      'true',
      'abcde bc cde true',
      `ababa 070707 -1`,
      '2 false 4',
      `3 ${(() => {
        const w = Buffer.alloc(8);
        w.write('hey', 2);
        return w.toString('hex');
      })()}`,
      '00616200',
      `${n.toString('hex')} ${n.readUInt32BE(0)} -2 ${n.readUInt16LE(4)} 255`,
      'RangeError',
      'TypeError',
    ]);
  });
});
