// string.md "Base64", "Hashing" and "Cryptography"; bytes travel in strings the SDK's way
// (bytesText/textBytes), so hex2bin(hmac(...)).base64_encode() gives the signature's base64.
import { createHash, createHmac, getHashes, sign, verify } from 'node:crypto';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { bytesText, textBytes } from '@capture/sdk/bytes';
import { fail } from '../lang/errors.js';
import { str, type Library } from './host.js';

const NODE_NAMES: Record<string, string> = { 'sha512/224': 'sha512-224', 'sha512/256': 'sha512-256', ripemd160: 'ripemd160' };

function nodeAlgo(algo: string): string | null {
  const a = algo.toLowerCase();
  const name = NODE_NAMES[a] ?? a;
  return getHashes().includes(name) ? name : null;
}

/** PHP's 'crc32' (the bzip2 polynomial, MSB first). */
function crc32Bzip2(data: Buffer): number {
  let crc = 0xffffffff;
  for (const b of data) {
    crc ^= b << 24;
    for (let k = 0; k < 8; k++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  return ~crc >>> 0;
}

function fnv(data: Buffer, bits: 32 | 64, a: boolean): string {
  const prime = bits === 32 ? 0x01000193n : 0x100000001b3n;
  const mask = (1n << BigInt(bits)) - 1n;
  let h = bits === 32 ? 0x811c9dc5n : 0xcbf29ce484222325n;
  for (const b of data) {
    if (a) h = ((h ^ BigInt(b)) * prime) & mask;
    else h = ((h * prime) & mask) ^ BigInt(b);
  }
  return h.toString(16).padStart(bits / 4, '0');
}

const hex32 = (n: number) => (n >>> 0).toString(16).padStart(8, '0');

const SPECIAL: Record<string, (d: Buffer) => string> = {
  crc32b: (d) => hex32(zlibCrc32(d)),
  crc32: (d) => {
    // PHP prints the bzip2 CRC byte-reversed.
    const h = hex32(crc32Bzip2(d));
    return h.match(/../g)!.reverse().join('');
  },
  adler32: (d) => {
    let a = 1;
    let b = 0;
    for (const x of d) {
      a = (a + x) % 65521;
      b = (b + a) % 65521;
    }
    return hex32((b << 16) | a);
  },
  fnv132: (d) => fnv(d, 32, false),
  fnv1a32: (d) => fnv(d, 32, true),
  fnv164: (d) => fnv(d, 64, false),
  fnv1a64: (d) => fnv(d, 64, true),
  joaat: (d) => {
    let h = 0;
    for (const x of d) {
      h = (h + x) >>> 0;
      h = (h + (h << 10)) >>> 0;
      h = (h ^ (h >>> 6)) >>> 0;
    }
    h = (h + (h << 3)) >>> 0;
    h = (h ^ (h >>> 11)) >>> 0;
    h = (h + (h << 15)) >>> 0;
    return hex32(h);
  },
};

export function hashHex(value: string, algo: string): string {
  const data = textBytes(value);
  const special = SPECIAL[algo.toLowerCase()];
  if (special) return special(data);
  const name = nodeAlgo(algo);
  if (!name) fail(`The hash algorithm ${JSON.stringify(algo)} is not available here`);
  return createHash(name!).update(data).digest('hex');
}

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

function fromBase64(s: string, url: boolean): string {
  let t = s.replace(/\s+/g, '');
  if (url) t = t.replace(/-/g, '+').replace(/_/g, '/');
  if (/[^A-Za-z0-9+/=]/.test(t)) return '';
  return bytesText(Buffer.from(t, 'base64'));
}

export function encodingLibrary(): Library {
  return {
    base64_encode: (_c, a) => textBytes(str(a, 0)).toString('base64'),
    base64_decode: (_c, a) => fromBase64(str(a, 0), false),
    base64_urlencode: (_c, a) => b64url(textBytes(str(a, 0))),
    base64url_encode: (_c, a) => b64url(textBytes(str(a, 0))),
    base64_urldecode: (_c, a) => fromBase64(str(a, 0), true),
    base64url_decode: (_c, a) => fromBase64(str(a, 0), true),
    hash: (_c, a) => hashHex(str(a, 0), str(a, 1)),
    md5: (_c, a) => hashHex(str(a, 0), 'md5'),
    sha1: (_c, a) => hashHex(str(a, 0), 'sha1'),
    hmac: (_c, a) => {
      const name = nodeAlgo(str(a, 1));
      if (!name) fail(`The HMAC algorithm ${JSON.stringify(str(a, 1))} is not available here`);
      return createHmac(name!, textBytes(str(a, 2)))
        .update(textBytes(str(a, 0)))
        .digest('hex');
    },
    digest: (_c, a) => {
      const name = nodeAlgo(str(a, 1));
      if (!name) return false;
      return createHash(name)
        .update(textBytes(str(a, 0)))
        .digest('hex');
    },
    sign: (_c, a) => {
      try {
        const name = nodeAlgo(str(a, 2) || 'sha256');
        const sig = sign(name, textBytes(str(a, 0)), str(a, 1));
        return bytesText(sig);
      } catch {
        return false;
      }
    },
    verify: (_c, a) => {
      try {
        const name = nodeAlgo(str(a, 3) || 'sha256');
        return verify(name, textBytes(str(a, 0)), str(a, 2), textBytes(str(a, 1)));
      } catch {
        return false;
      }
    },
  };
}
