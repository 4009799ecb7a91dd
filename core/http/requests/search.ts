// The `query` parameter of request lists, exports, deletes and waits: the search language parsed
// once, its syntax errors answered as a 422 that names the position.
import { ValidationError } from '../../errors.js';
import { QuerySyntaxError, parseQuery } from '../../store/query/index.js';

export function parseSearch(text: string | undefined) {
  try {
    return text === undefined ? null : parseQuery(text);
  } catch (e) {
    if (e instanceof QuerySyntaxError) throw new ValidationError(`query: ${e.message}`, { query: [e.message] });
    throw e;
  }
}
