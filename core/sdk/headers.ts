// `Name: value` header lines, the form every action with a headers field takes (Modify Response,
// HTTP Request, the multimedia actions' responses...).

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** One `Name: value` per line (blank lines ignored) -> pairs; throws naming the first bad line. */
export function parseHeaderLines(text: string | null | undefined): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  for (const line of (text ?? '').split(/\r?\n/)) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!HEADER_NAME.test(name)) throw new Error(`Invalid header line ${JSON.stringify(line)}: expected "Name: value"`);
    headers.push([name, line.slice(colon + 1).trim()]);
  }
  return headers;
}
