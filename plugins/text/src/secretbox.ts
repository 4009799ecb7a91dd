// Password-based XSalsa20-Poly1305 (NaCl secretbox) with a scrypt-derived key.
// Format: base64( version 1 | salt 16 | nonce 24 | box ), so the same password decrypts anywhere.
import { randomBytes, scrypt } from 'node:crypto';
import { lazyImport } from '@capture/sdk/async';

// tweetnacl is loaded by the first encryption or decryption, not at start-up.
const loadNacl = lazyImport(() => import('tweetnacl').then((m) => m.default));

const VERSION = 1;
const SALT = 16;
// NaCl secretbox's fixed sizes (nacl.secretbox.nonceLength, keyLength, overheadLength).
const NONCE = 24;
const KEY = 32;
const OVERHEAD = 16;
// 16 MiB and ~50 ms per derivation: slow enough to resist guessing, fast enough for a capture.
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

function deriveKey(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function encrypt(plaintext: string, password: string): Promise<string> {
  const salt = randomBytes(SALT);
  const nonce = randomBytes(NONCE);
  const key = await deriveKey(password, salt);
  const nacl = await loadNacl();
  const box = nacl.secretbox(new Uint8Array(Buffer.from(plaintext, 'utf8')), new Uint8Array(nonce), new Uint8Array(key));
  return Buffer.concat([Buffer.from([VERSION]), salt, nonce, Buffer.from(box)]).toString('base64');
}

export async function decrypt(encoded: string, password: string): Promise<string> {
  const data = Buffer.from(encoded.trim(), 'base64');
  if (data.length < 1 + SALT + NONCE + OVERHEAD || data[0] !== VERSION) {
    throw new Error('The text is not something Encrypt Text produced');
  }
  const salt = data.subarray(1, 1 + SALT);
  const nonce = data.subarray(1 + SALT, 1 + SALT + NONCE);
  const key = await deriveKey(password, salt);
  const nacl = await loadNacl();
  const opened = nacl.secretbox.open(new Uint8Array(data.subarray(1 + SALT + NONCE)), new Uint8Array(nonce), new Uint8Array(key));
  if (!opened) throw new Error('Decryption failed: wrong password or altered text');
  return Buffer.from(opened).toString('utf8');
}
