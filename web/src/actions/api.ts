// The API calls of the visual action editor: action types, providers, global variables, stored
// requests to test on, and the dry test run of the document being edited.
import { call, enc, type CapturedRequest, type RequestPage } from '../api';
import { settings } from '../settings';
import type { ActionType } from './schema';

export type { ActionType };

export interface ProviderType {
  type: string;
  title: string;
  plugin: string;
}

export interface Provider {
  id: number | string;
  type: string;
  name: string;
}

export interface StepTrace {
  action: string;
  type: string;
  order: number;
  variables: Record<string, string>;
}

export interface TestRun {
  success: boolean;
  result: {
    output: Record<string, string[]>;
    errors: Array<{ action: string; message: string }>;
    response: { content: string | null; status: number | null; headers: Record<string, string> | null };
    dont_save: boolean;
    stopped: boolean;
    variables: Record<string, string>;
    steps?: StepTrace[];
  };
}

let typesPromise: Promise<ActionType[]> | undefined;
export function actionTypes(): Promise<ActionType[]> {
  typesPromise ??= call<{ data: ActionType[] }>('GET', '/action-types').then((r) => r.data);
  typesPromise.catch(() => (typesPromise = undefined));
  return typesPromise;
}

let providerTypesPromise: Promise<ProviderType[]> | undefined;
export function providerTypes(): Promise<ProviderType[]> {
  providerTypesPromise ??= call<ProviderType[] | { data: ProviderType[] }>('GET', '/provider-types')
    .then((r) => (Array.isArray(r) ? r : r.data))
    .catch(() => []);
  return providerTypesPromise;
}

/** The signed-in account's providers of one type; empty when anonymous or not available. */
export function providers(type: string | undefined): Promise<Provider[]> {
  const q = type ? `?per_page=100&type=${enc(type)}` : '?per_page=100';
  return call<{ data: Provider[] }>('GET', `/providers${q}`)
    .then((r) => r.data)
    .catch(() => []);
}

/** The account's global variables with their values; empty when anonymous (not even asked: no 401 in the console). */
export function globalVariables(): Promise<Array<{ name: string; value?: string }>> {
  if (!settings.apiKey()) return Promise.resolve([]);
  return call<{ data: Array<{ name: string; value?: string }> }>('GET', '/global-variables?per_page=100')
    .then((r) => r.data.map((g) => ({ name: g.name, ...(typeof g.value === 'string' ? { value: g.value } : {}) })))
    .catch(() => []);
}

export function recentRequests(token: string): Promise<CapturedRequest[]> {
  return call<RequestPage>('GET', `/token/${enc(token)}/requests?per_page=20&sorting=newest`, { token }).then((r) => r.data);
}

/** Runs the document's steps up to index `until` on a stored request (the latest by default); stores nothing. */
export function testWorkflow(token: string, document: unknown, until: number, requestId?: string): Promise<TestRun> {
  return call<TestRun>('POST', `/token/${enc(token)}/workflow/test`, { token, json: { document, until, ...(requestId ? { request_id: requestId } : {}) } });
}
