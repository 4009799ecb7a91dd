import { BadRequest } from '../../errors.js';

/**
 * Any problem with a search query: syntax, unknown field, bad value. It is a 400 so the HTTP layer
 * renders it without special handling. `position` is a 0-based offset into the query text.
 */
export class QuerySyntaxError extends BadRequest {
  readonly position: number;

  constructor(message: string, position: number) {
    const text = `${message} at position ${position}`;
    super(text, { query: [text] });
    this.name = 'QuerySyntaxError';
    this.position = position;
  }
}

/** Quotes user text for an error message, shortened so a huge query cannot bloat the response. */
export function quote(text: string): string {
  const short = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return JSON.stringify(short);
}
