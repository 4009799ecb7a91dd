// The captured request as plugins see it: its own file so the service types (services.ts) and the
// action types (types.ts) can both use it without importing each other.

export interface CapturedFile {
  id: string;
  /** Form field name (or 'attachment' for e-mail). */
  name: string;
  filename: string;
  size: number;
  content_type: string;
  /** The bytes, when the capture pipeline hands them to the actions (`$request.file.x.content$`). */
  content?: Buffer | string;
  /** Download URL of the stored file. */
  link?: string;
}

/** The captured request as the API shows it (`GET /token/{id}/request/{id}`). */
export interface CapturedRequest {
  uuid: string;
  token_id: string;
  type: 'web' | 'email' | 'dns';
  method: string;
  url: string;
  hostname: string;
  ip: string;
  user_agent: string;
  /** The body as text (UTF-8). The exact bytes are `ctx.rawBody`. */
  content: string;
  /** Lower-case name -> values. */
  headers: Record<string, string[]>;
  query: Record<string, unknown> | null;
  /** Every value of each query key, in order (`query` keeps the last of a repeated key). */
  query_all?: Record<string, string[]> | null;
  /** Parsed form fields. */
  request: Record<string, unknown> | null;
  files: CapturedFile[] | Record<string, CapturedFile>;
  size: number;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  created_at: string;
  // E-mail captures.
  sender?: string;
  message_id?: string;
  destinations?: string[];
  text_content?: string;
  html_content?: string;
  /** true = verified, false = checked and not passed, null = could not be checked (or not scanned). */
  checks?: Record<string, boolean | null>;
  // DNS captures.
  dns?: { name: string; type: string; protocol: 'udp' | 'tcp'; subdomain: string };
  [field: string]: unknown;
}
