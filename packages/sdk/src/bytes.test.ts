import { describe, expect, it } from 'vitest';
import { runChain } from './runner.js';
import { ActionRegistry } from '../../../core/actions/registry.js';
import { BYTES_END, BYTES_START, bytesText, hasBytes, textByteLength, textBytes } from './bytes.js';
import { defineAction, z } from './index.js';
import { TEST_TOKEN, testRequest, testServices } from './testing.js';

const binary = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28]);

describe('bytes in variable text', () => {
  it('keeps UTF-8 as plain text and other bytes as a marked span', () => {
    expect(bytesText(Buffer.from('héllo ✓', 'utf8'))).toBe('héllo ✓');
    const t = bytesText(binary);
    expect(t.startsWith(BYTES_START) && t.endsWith(BYTES_END)).toBe(true);
    expect(hasBytes(t)).toBe(true);
    expect(textBytes(t).equals(binary)).toBe(true);
    // Text that happens to contain a marker is carried as bytes too, so it round-trips.
    const tricky = Buffer.from(`a${BYTES_START}b`, 'utf8');
    expect(textBytes(bytesText(tricky)).equals(tricky)).toBe(true);
  });

  it('mixes text and spans, as templating concatenates them', () => {
    const mixed = `é-${bytesText(binary)}-✓`;
    expect(textBytes(mixed).equals(Buffer.concat([Buffer.from('é-'), binary, Buffer.from('-✓')]))).toBe(true);
    expect(textByteLength(mixed)).toBe(Buffer.byteLength('é--✓') + binary.length);
  });

  it('a response built from bytes is sent as those bytes; base64 modifiers see bytes', async () => {
    const make = defineAction({
      type: 'make_bytes',
      title: 'Make bytes',
      category: 'test',
      description: 'Sets $file$ to binary bytes',
      parameters: z.object({}),
      execute: ({ vars }) => vars.set('file', bytesText(binary)),
    });
    const respond = defineAction({
      type: 'respond_with',
      title: 'Respond with',
      category: 'test',
      description: 'Sets the response content',
      parameters: z.object({ content: z.string(), b64: z.string() }),
      execute: ({ params, response, vars }) => {
        response.content = params.content;
        vars.set('b64', params.b64);
      },
    });
    const registry = new ActionRegistry();
    registry.addAll('test', [make, respond]);
    const rawBody = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff]);
    const r = await runChain({
      token: TEST_TOKEN,
      request: testRequest({ content: rawBody.toString('utf8') }),
      rawBody,
      registry,
      services: testServices(),
      actions: [
        { uuid: 'a', type: 'make_bytes', order: 1, parameters: {} },
        { uuid: 'b', type: 'respond_with', order: 2, parameters: { content: '$file$', b64: '$file.base64_encode$|$request.content.base64_encode$' } },
      ],
    });
    expect(Buffer.isBuffer(r.response?.content)).toBe(true);
    expect((r.response!.content as Buffer).equals(binary)).toBe(true);
    // The binary request body is bytes too, not U+FFFD replacement characters.
    expect(r.runtimeVariables.b64).toBe(`${binary.toString('base64')}|${rawBody.toString('base64')}`);
  });
});
