// Whole-file SFTP reads and writes with several requests in flight (one round trip per 32 KiB
// chunk would make a 10 MiB file take minutes over a slow link), and readable error messages.
import type { SFTPWrapper } from 'ssh2';

const CHUNK = 32 * 1024;
const IN_FLIGHT = 16;

// SFTP status codes (draft-ietf-secsh-filexfer-02).
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;

/** An SFTP failure as a sentence naming the path. */
export function sftpError(e: unknown, path: string, doing: string): Error {
  const err = e as Error & { code?: number | string };
  if (err.code === NO_SUCH_FILE) return new Error(`No such file or directory: ${path} (${doing})`);
  if (err.code === PERMISSION_DENIED) return new Error(`Permission denied: ${path} (${doing})`);
  return new Error(`SFTP error ${doing} ${path}: ${err.message}`);
}

function call<T>(fn: (cb: (err: Error | null | undefined, value: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
}

async function pool(count: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count) }, worker));
}

/** Reads up to `length` bytes at `position`; fewer only at the end of the file. */
async function readAt(sftp: SFTPWrapper, handle: Buffer, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = await call<number>((cb) => sftp.read(handle, buf, got, length - got, position + got, (err, bytesRead) => cb(err, bytesRead)));
    if (!n) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** The file's first `max` bytes; `size` is the whole file's when the server reports it. */
export async function readFile(sftp: SFTPWrapper, path: string, max: number): Promise<{ data: Buffer; truncated: boolean; size?: number }> {
  let handle: Buffer;
  try {
    handle = await call<Buffer>((cb) => sftp.open(path, 'r', cb));
  } catch (e) {
    throw sftpError(e, path, 'opening');
  }
  try {
    const attrs = await call<{ size?: number }>((cb) => sftp.fstat(handle, cb)).catch(() => ({}) as { size?: number });
    const size = typeof attrs.size === 'number' ? attrs.size : undefined;
    // Ask for one byte more than kept, to tell "exactly max" from "more than max".
    let data: Buffer;
    if (size === undefined) {
      const parts: Buffer[] = [];
      let total = 0;
      for (;;) {
        const part = await readAt(sftp, handle, total, Math.min(CHUNK, max + 1 - total));
        parts.push(part);
        total += part.length;
        if (part.length === 0 || total > max) break;
      }
      data = Buffer.concat(parts);
    } else {
      const wanted = Math.min(size, max) + 1;
      const chunks: Buffer[] = [];
      await pool(Math.ceil(wanted / CHUNK), async (i) => {
        chunks[i] = await readAt(sftp, handle, i * CHUNK, Math.min(CHUNK, wanted - i * CHUNK));
      });
      // A short chunk is the end of the file (it may have shrunk since fstat): keep what precedes it.
      const kept: Buffer[] = [];
      for (const [i, c] of chunks.entries()) {
        kept.push(c);
        if (c.length < Math.min(CHUNK, wanted - i * CHUNK)) break;
      }
      data = Buffer.concat(kept);
    }
    const truncated = data.length > max;
    return { data: truncated ? data.subarray(0, max) : data, truncated, size };
  } catch (e) {
    throw sftpError(e, path, 'reading');
  } finally {
    sftp.close(handle, () => {});
  }
}

/** Creates or replaces the file with `data`. */
export async function writeFile(sftp: SFTPWrapper, path: string, data: Buffer): Promise<void> {
  let handle: Buffer;
  try {
    handle = await call<Buffer>((cb) => sftp.open(path, 'w', cb));
  } catch (e) {
    throw sftpError(e, path, 'creating');
  }
  try {
    await pool(Math.ceil(data.length / CHUNK), async (i) => {
      const start = i * CHUNK;
      const end = Math.min(start + CHUNK, data.length);
      await call<void>((cb) => sftp.write(handle, data, start, end - start, start, (err) => cb(err, undefined)));
    });
  } catch (e) {
    sftp.close(handle, () => {});
    throw sftpError(e, path, 'writing');
  }
  try {
    // Closing flushes on some servers: its error is a write error.
    await call<void>((cb) => sftp.close(handle, (err) => cb(err, undefined)));
  } catch (e) {
    throw sftpError(e, path, 'writing');
  }
}
