// A certificate and key named by a pair of settings (TLS_CERT/TLS_KEY for the HTTP port,
// SMTP_TLS_CERT/SMTP_TLS_KEY for STARTTLS): read and checked at start-up, so a bad file stops the
// service with one sentence naming the setting instead of failing the first client's handshake.
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { StartupError } from '../errors.js';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/** A PEM file named by a setting; a StartupError naming the setting when it cannot be read. */
function readPem(setting: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new StartupError(`${setting}=${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): it must name a PEM file this process can read.`);
  }
}

/** The pair named by `certSetting`=`certFile` and `keySetting`=`keyFile`, proven usable together. */
export function readTlsFiles(certSetting: string, certFile: string, keySetting: string, keyFile: string): TlsFiles {
  const files = { cert: readPem(certSetting, certFile), key: readPem(keySetting, keyFile) };
  try {
    createSecureContext(files);
  } catch (err) {
    throw new StartupError(`${certSetting}=${certFile} / ${keySetting}=${keyFile}: not a usable PEM certificate and private key pair (${(err as Error).message}).`);
  }
  return files;
}
