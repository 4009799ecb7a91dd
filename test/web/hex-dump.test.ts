// The page's hex dump of bodies that are not text: `hexdump -C`'s layout.
import { describe, expect, it } from 'vitest';
import { bytesOfBase64, hexDump } from '../../web/src/hex-dump.js';

describe('hexDump', () => {
  it('prints offset, two groups of 8 bytes and the printable ASCII, a short last line padded', () => {
    const bytes = bytesOfBase64(Buffer.from('\x89PNG\r\n\x1a\n\x00\xffABCDEFG', 'latin1').toString('base64'));
    expect(hexDump(bytes).split('\n')).toEqual(['00000000  89 50 4e 47 0d 0a 1a 0a  00 ff 41 42 43 44 45 46  |.PNG......ABCDEF|', '00000010  47                                                |G|']);
  });

  it('counts offsets from `start` and prints nothing for no bytes', () => {
    expect(hexDump(new Uint8Array([0x7e, 0x7f, 0x20]), 0x100)).toBe('00000100  7e 7f 20' + ' '.repeat(42) + '|~. |');
    expect(hexDump(new Uint8Array())).toBe('');
  });
});
