// What a script prints (echo, console.log, dump) is kept with the capture and sent to its viewers,
// so one run keeps only so much: bytes in all, bytes per line and lines. A line past the per-line
// cap is cut; past the total cap the output ends with a marker line and nothing more is kept.
// Both script actions (JavaScript and WebhookScript) keep their output through this.

/** Bytes (UTF-8) of output one script run keeps. */
export const SCRIPT_OUTPUT_MAX_BYTES = 1024 * 1024;
/** Bytes (UTF-8) of one output line kept; the rest of the line is cut. */
export const SCRIPT_OUTPUT_MAX_LINE_BYTES = 64 * 1024;

export interface OutputLimits {
  maxBytes: number;
  maxLineBytes: number;
  maxLines: number;
}

const encoder = new TextEncoder();

/** The longest start of `text` that is at most `maxBytes` in UTF-8 (never half a character). */
function utf8Head(text: string, maxBytes: number): string {
  // A character is at least one byte, so at most maxBytes characters can fit.
  const candidate = text.length > maxBytes ? text.slice(0, maxBytes) : text;
  const { read } = encoder.encodeInto(candidate, new Uint8Array(maxBytes));
  return candidate.slice(0, read);
}

function count(n: number): string {
  return n.toLocaleString('en');
}

/** A run's output: lines go to `emit` (the run's log) until a limit is reached. */
export class ScriptOutput {
  private lines = 0;
  private bytes = 0;
  /** Set once the output was cut off: later lines are dropped. */
  full = false;

  constructor(
    private readonly limits: OutputLimits,
    private readonly emit: (line: string) => void,
  ) {}

  /** Keeps a line, cut to the limits; false once the output is full. */
  write(line: string): boolean {
    if (this.full) return false;
    if (this.lines >= this.limits.maxLines) return this.end(`(output cut: more than ${count(this.limits.maxLines)} lines)`);
    // A line longer in UTF-16 units than the cap is longer in bytes too: no need to measure it all.
    if (line.length > this.limits.maxLineBytes || Buffer.byteLength(line) > this.limits.maxLineBytes) {
      line = `${utf8Head(line, this.limits.maxLineBytes)}… (line cut at ${count(this.limits.maxLineBytes)} bytes)`;
    }
    const size = Buffer.byteLength(line);
    const left = this.limits.maxBytes - this.bytes;
    if (size > left) {
      const head = utf8Head(line, left);
      if (head) this.emit(head);
      return this.end(`(output cut: more than ${count(this.limits.maxBytes)} bytes)`);
    }
    this.bytes += size;
    this.lines++;
    this.emit(line);
    return true;
  }

  private end(marker: string): false {
    this.full = true;
    this.emit(marker);
    return false;
  }
}
