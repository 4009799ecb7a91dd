// MAX_HEADER_BYTES is a limit on the raw header block: request line, header lines and the blank
// line. node:http's own maxHeaderSize counts only the URL, names and values, so a block made of
// many short headers passes it well above the limit; it stays on as a guard against unbounded
// buffering (its count is always smaller), and this exact count decides.
import type { IncomingMessage } from 'node:http';

const COLON = 0x3a;

/**
 * Bytes of the header block as `METHOD url HTTP/x.y CRLF`, `name: value CRLF` per header, CRLF.
 * node:http decodes the URL, names and values as latin1, so string length is byte length. Extra
 * whitespace around a value, which the parser drops, is not counted. An HTTP/2 request is measured
 * as the same request in HTTP/1.1: its pseudo-headers are the request line, except `:authority`,
 * which counts as the Host header it stands for.
 */
export function headerBlockBytes(req: IncomingMessage): number {
  let size = (req.method?.length ?? 0) + 1 + (req.url?.length ?? 0) + ' HTTP/'.length + req.httpVersion.length + 2;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.charCodeAt(0) === COLON) {
      if (name === ':authority') size += 'host'.length + 2 + raw[i + 1]!.length + 2;
      continue;
    }
    size += name.length + 2 + raw[i + 1]!.length + 2;
  }
  return size + 2;
}
