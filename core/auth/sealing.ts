// Encryption at rest for secrets we must be able to read back (provider credentials, secret action
// parameters): AES-256-GCM with a key from SECRET_KEY, or from a key file created in DATA_DIR on
// first use. A sealed value names its key (a fingerprint): values sealed under a previous key
// (SECRET_KEY_PREVIOUS, during a rotation) still open, any other key fails with a clear message.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Sealer {
  /** JSON of `value`, encrypted: `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url parts). */
  seal(value: unknown): string;
  /** The value `seal` was given; throws when the text was sealed under an unknown key or altered. */
  open<T = unknown>(sealed: string): T;
  /** Whether `sealed` names the current key (a rotation leaves such values as they are). */
  isCurrent(sealed: string): boolean;
}

export class SealError extends Error {}

interface Key {
  id: string;
  key: Buffer;
}

function deriveKey(secret: string | Buffer): Key {
  // Any length of secret becomes a 256-bit key; the key id is a hash of the key, not the key.
  const key = createHash('sha256').update(secret).digest();
  return { key, id: createHash('sha256').update(key).digest('base64url').slice(0, 8) };
}

/** Seals under `secret`; opens values sealed under it or under any of `previous` (matched by key id). */
export function createSealer(secret: string | Buffer, previous: ReadonlyArray<string | Buffer> = []): Sealer {
  const current = deriveKey(secret);
  const keys = new Map([...previous.map(deriveKey), current].map((k) => [k.id, k]));
  return {
    seal(value) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current.key, iv);
      cipher.setAAD(Buffer.from(current.id));
      const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return ['v1', current.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    open<T>(sealed: string): T {
      const [v, id, iv, tag, data] = sealed.split('.');
      if (v !== 'v1' || !id || !iv || !tag || data === undefined) throw new SealError('Not a sealed value');
      const k = keys.get(id);
      if (!k) throw new SealError('This secret was sealed under another SECRET_KEY; set the key it was stored with (as SECRET_KEY or in SECRET_KEY_PREVIOUS), or enter the credentials again');
      try {
        const decipher = createDecipheriv('aes-256-gcm', k.key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(k.id));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        const text = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
        return JSON.parse(text) as T;
      } catch {
        throw new SealError('A sealed secret could not be decrypted (altered, or sealed under another key)');
      }
    },
    isCurrent(sealed) {
      const [v, id] = sealed.split('.', 2);
      return v === 'v1' && id === current.id;
    },
  };
}

/**
 * SECRET_KEY when set; otherwise the key in `<dataDir>/secret.key`, created (0600) when missing.
 * Several instances sharing one database must share SECRET_KEY.
 */
export function loadSecretKey(config: { SECRET_KEY?: string; dataDir: string }): string {
  if (config.SECRET_KEY) return config.SECRET_KEY;
  // An in-memory store dies with the process, and so may its key.
  if (config.dataDir === ':memory:') return randomBytes(32).toString('base64url');
  const file = path.join(config.dataDir, 'secret.key');
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8').trim();
    if (text.length >= 32) return text;
    throw new SealError(`${file} holds no usable key (expected at least 32 characters): fix it or set SECRET_KEY`);
  }
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64url');
  writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
