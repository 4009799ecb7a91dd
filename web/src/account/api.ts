// The account area's side of the API: the shapes of users, keys, providers, templates, databases,
// global variables and groups; who the stored API key signs in as; and a way for any screen to
// open the API key panel (it lives in the page header, App.tsx).
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, type FieldErrors, type Page } from '../api';
import { settings } from '../settings';

export interface Me {
  id: number | null;
  name: string;
  email?: string;
  admin: boolean;
  premium: boolean;
  /** Users only (not the administrator key): their team and user type. */
  team_id?: number;
  user_type_id?: UserTypeId;
  user_type?: string;
  /** Users limited to groups see only the tokens and schedules in these. */
  group_ids?: number[] | null;
}

/** 100 Administrator, 200 Member, 300 Viewer. */
export type UserTypeId = 100 | 200 | 300;
export const USER_TYPE_NAMES: Record<UserTypeId, string> = { 100: 'Administrator', 200: 'Member', 300: 'Viewer' };

/** Who may manage the team's users: the administrator key or an Administrator. */
export const managesUsers = (me: Me) => me.admin || me.user_type_id === 100;

export interface User {
  id: number;
  name: string;
  email: string;
  premium: boolean;
  team_id: number;
  user_type_id: UserTypeId;
  user_type: string;
  role_id: number | null;
  /** The groups the user is limited to (their tokens and schedules); null: not limited. */
  group_ids: number[] | null;
  invite_pending: boolean;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyInfo {
  id: number;
  user_id: number;
  prefix: string;
  created_at: string;
}

/** A key as the server answers it once, at creation. */
export interface NewApiKey {
  id: number;
  api_key: string;
  /** Who it belongs to, for the notice. */
  owner: string;
}

export interface ProviderType {
  type: string;
  title: string;
  description?: string;
  generates_credentials: boolean;
  credentials: JsonSchema;
  settings: JsonSchema;
}

export interface Provider {
  id: string;
  type: string;
  name: string;
  settings: Record<string, unknown>;
  credential_fields: string[];
  created_at: string;
  updated_at: string;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  format?: string;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
}

export interface TemplateAction {
  uuid: string;
  type: string;
  order: number;
  name: string | null;
  disabled?: boolean;
  condition: string | null;
  condition_action: 'true' | 'false' | null;
  parameters: Record<string, unknown>;
}

export interface Template {
  id: number;
  name: string;
  variables: Array<{ name: string; value: string }>;
  actions: TemplateAction[];
  created_at: string;
  updated_at: string;
}

export interface Database {
  id: string;
  name: string;
  bytes_used: number | null;
  tables_used: number | null;
  created_at: string;
  updated_at: string;
}

/** A column as the Database Manager shows it (GET /databases/{id}/tables). */
export interface DbColumn {
  name: string;
  type: string;
  nullable: boolean;
  default: string | null;
  primary_key: boolean;
}

export interface DbTable {
  name: string;
  rows_estimate: number;
  primary_key: string[];
  columns: DbColumn[];
}

export interface DbTableList {
  data: DbTable[];
  column_types: string[];
  default_expressions: string[];
}

export type DbRow = Record<string, unknown>;

export interface QueryAnswer {
  result: Array<Record<string, unknown>> | null;
  error: string | null;
  time: number;
}

export interface GlobalVariable {
  id: number;
  name: string;
  value: string;
  created_at: string;
  updated_at: string;
}

export interface Group {
  id: number;
  name: string;
  created_at: string;
  updated_at: string;
}

/**
 * The groups the caller may use (theirs; a user limited to groups: those), for a list's group
 * filter and an editor's group choice. Asked for only with `enabled` (an API key to ask with);
 * empty until they arrive, and when they cannot be read.
 */
export function useGroups(enabled = true): Group[] {
  const [groups, setGroups] = useState<Group[]>([]);
  useEffect(() => {
    setGroups([]);
    if (!enabled) return;
    call<Page<Group>>('GET', '/groups?per_page=100').then(
      (p) => setGroups(p.data),
      () => setGroups([]),
    );
  }, [enabled]);
  return groups;
}

/** A group's name, or its number when the caller does not see the group. */
export const groupName = (groups: Pick<Group, 'id' | 'name'>[], id: number) => groups.find((g) => g.id === id)?.name ?? `Group #${id}`;

/** Who the stored key signs in as: nobody (no key), a key the server refuses, or a user/the administrator. */
export type Session = { state: 'anonymous' } | { state: 'checking' } | { state: 'invalid'; message: string } | { state: 'signed-in'; me: Me };

let cached: { key: string; answer: Promise<Session> } | null = null;
// Saving a key (even the same one again) asks the server anew.
settings.subscribe(() => {
  cached = null;
});

function check(key: string): Promise<Session> {
  if (cached?.key !== key) {
    cached = {
      key,
      answer: call<Me>('GET', '/users/me').then(
        (me): Session => ({ state: 'signed-in', me }),
        (e: ApiError): Session => {
          // A network failure is not a verdict on the key: ask again next time.
          if (e.status === 0) cached = null;
          return { state: 'invalid', message: e.status === 401 ? 'This API key is not valid on this server.' : e.message };
        },
      ),
    };
  }
  return cached.answer;
}

export function useSession(): Session {
  const [key, setKey] = useState(settings.apiKey());
  const [session, setSession] = useState<Session>(key ? { state: 'checking' } : { state: 'anonymous' });
  useEffect(() => settings.subscribe(() => setKey(settings.apiKey())), []);
  useEffect(() => {
    if (!key) return setSession({ state: 'anonymous' });
    let live = true;
    setSession({ state: 'checking' });
    void check(key).then((s) => live && setSession(s));
    return () => {
      live = false;
    };
  }, [key]);
  return session;
}

const openers = new Set<() => void>();
/** Opens the API key panel in the header and moves focus into it. */
export function openApiKeyPanel(): void {
  openers.forEach((o) => o());
}
export function onOpenApiKeyPanel(o: () => void): () => void {
  openers.add(o);
  return () => openers.delete(o);
}

/** An API error as a field map for the form, plus its message for the form as a whole. */
export function formErrors(e: unknown): { message: string; errors: FieldErrors } {
  if (e instanceof ApiError) return { message: e.message, errors: e.errors ?? {} };
  return { message: (e as Error)?.message ?? String(e), errors: {} };
}

/**
 * The line shown beside a form's button after a failed save: errors that no field of the form
 * shows are spelled out (`credentials: ...`); the rest are already next to their fields.
 */
export function formSummary(f: { message: string; errors: FieldErrors }, shownByFields: (key: string) => boolean): string {
  const keys = Object.keys(f.errors);
  if (keys.length === 0) return f.message;
  const elsewhere = keys.filter((k) => !shownByFields(k));
  if (elsewhere.length === 0) return keys.length === 1 ? 'Check the field marked above.' : 'Check the fields marked above.';
  return elsewhere.map((k) => `${k.replace(/\./g, ' → ')}: ${f.errors[k]!.join(' ')}`).join(' ');
}

export function formatBytes(n: number | null): string {
  if (n === null) return 'unknown';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10240 ? 1 : 0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
