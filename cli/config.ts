// Which server the command line talks to, and with which API key: each setting from the first of
// its flag (--server, --api-key), the environment (CAPTURE_URL, CAPTURE_API_KEY) and a config file
// (--config, else CAPTURE_CONFIG, else ./.capturerc, else ~/.config/capture/config.json), JSON:
// {"url": "http://capture.internal:8084", "api_key": "whk_..."}. The URL defaults to
// http://localhost:8084.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './args.js';

export const DEFAULT_URL = 'http://localhost:8084';

export type Source = 'flag' | 'environment' | 'default' | string;

export interface Connection {
  url: string;
  apiKey?: string;
  /** Where each setting came from (a file's path for a config file), for error messages. */
  from: { url: Source; apiKey?: Source };
}

export interface ConnectionInput {
  server?: string;
  apiKey?: string;
  config?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  home: string;
}

/** The config files looked at, in order; the first that exists is read. */
export function configCandidates(input: Pick<ConnectionInput, 'config' | 'env' | 'cwd' | 'home'>): { file: string; named: boolean }[] {
  const named = input.config ?? input.env.CAPTURE_CONFIG;
  if (named) return [{ file: path.resolve(input.cwd, named), named: true }];
  const xdg = input.env.XDG_CONFIG_HOME || path.join(input.home, '.config');
  return [
    { file: path.join(input.cwd, '.capturerc'), named: false },
    { file: path.join(xdg, 'capture', 'config.json'), named: false },
  ];
}

function readConfigFile(input: ConnectionInput): { file: string; url?: string; apiKey?: string } | null {
  for (const { file, named } of configCandidates(input)) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !named) continue;
      throw new UsageError(`config file ${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new UsageError(`config file ${file} is not valid JSON (${(e as Error).message})`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`config file ${file} must hold a JSON object such as {"url": "...", "api_key": "..."}`);
    const o = value as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (k !== 'url' && k !== 'api_key') throw new UsageError(`config file ${file}: unknown setting "${k}" (url and api_key are known)`);
      if (typeof o[k] !== 'string') throw new UsageError(`config file ${file}: "${k}" must be a string`);
    }
    return { file, url: o.url as string | undefined, apiKey: o.api_key as string | undefined };
  }
  return null;
}

export function resolveConnection(input: ConnectionInput): Connection {
  const file = readConfigFile(input);
  const pick = (flagValue: string | undefined, envName: string, fileValue: string | undefined): [string, Source] | undefined => {
    if (flagValue) return [flagValue, 'flag'];
    if (input.env[envName]) return [input.env[envName]!, 'environment'];
    if (fileValue) return [fileValue, file!.file];
    return undefined;
  };
  const [url, urlFrom] = pick(input.server, 'CAPTURE_URL', file?.url) ?? [DEFAULT_URL, 'default'];
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    const where = urlFrom === 'flag' ? '--server' : urlFrom === 'environment' ? 'CAPTURE_URL' : `"url" in ${urlFrom}`;
    throw new UsageError(`${where} must be an http:// or https:// URL, not ${JSON.stringify(url)}`);
  }
  const key = pick(input.apiKey, 'CAPTURE_API_KEY', file?.apiKey);
  return { url, ...(key ? { apiKey: key[0] } : {}), from: { url: urlFrom, ...(key ? { apiKey: key[1] } : {}) } };
}

export function connectionFromProcess(flags: { server?: string; apiKey?: string; config?: string }): Connection {
  return resolveConnection({ ...flags, env: process.env, cwd: process.cwd(), home: os.homedir() });
}
