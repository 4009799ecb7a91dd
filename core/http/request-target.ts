// A request target is mostly a path (origin-form, `/path?query`), but HTTP/1.1 has two more forms a
// server must accept (RFC 9112 §3.2): absolute-form, `http://host/path?query`, as clients send to a
// proxy, and asterisk-form, `*`, which names the server as a whole (`OPTIONS *`). Routes and
// capture URLs read the origin-form each stands for.

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** `target` in origin-form: absolute-form loses its scheme and authority, `*` is `/`; anything else is returned as it is. */
export function originForm(target: string): string {
  if (target === '*') return '/';
  const prefix = ABSOLUTE.exec(target);
  if (!prefix) return target;
  const rest = target.slice(prefix[0].length);
  return rest.charCodeAt(0) === 0x2f ? rest : '/' + rest;
}
