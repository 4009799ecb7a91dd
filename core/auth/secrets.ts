// Hashing of the secrets we keep: API keys (long random strings: sha256 is enough and lets us look
// them up by hash) and token passwords (chosen by people: scrypt with a salt).
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { availableParallelism } from 'node:os';

export function newApiKey(): string {
  return 'whk_' + randomBytes(24).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

const SCRYPT = { N: 16384, r: 8, p: 1 };

/**
 * scrypt runs on libuv's thread pool, never on the event loop, and at most this many at once: the
 * event loop keeps a core, and the pool (4 threads: file, DNS and zlib work too) keeps two threads,
 * however many password checks are waiting.
 */
const MAX_HASHING = Math.max(1, Math.min(2, availableParallelism() - 1));
let hashing = 0;
const waiting: Array<() => void> = [];

async function scryptOffLoop(password: string, salt: Buffer, length: number): Promise<Buffer> {
  if (hashing >= MAX_HASHING) await new Promise<void>((resolve) => waiting.push(resolve));
  else hashing++;
  try {
    return await new Promise<Buffer>((resolve, reject) => scrypt(password, salt, length, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))));
  } finally {
    // The slot passes straight to the next waiter (first come, first served), or is freed.
    const next = waiting.shift();
    if (next) next();
    else hashing--;
  }
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptOffLoop(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptOffLoop(password, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(actual, expected);
}
