// Progress of a long CLI command on stderr: one bar per item (a kind of record, a file), redrawn in
// place on a terminal, or plain lines (at most one every few seconds, and one when an item ends)
// when stderr is a file or a pipe, so logs stay readable.

export interface ProgressLine {
  what: string;
  done: number;
  total: number;
  /** Done before this run (a resumed copy): not counted in the rate. */
  resumed?: number;
  unit?: string;
}

export interface Progress {
  update(p: ProgressLine): void;
  /** Ends the current line (call before printing anything else). */
  end(): void;
}

const PLAIN_EVERY_MS = 5_000;
const WIDTH = 24;
const num = (n: number) => Math.round(n).toLocaleString('en-US');

function seconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${Math.ceil(s)}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(Math.ceil(s % 60)).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

export function formatProgress(p: ProgressLine, elapsedMs: number, bar: boolean): string {
  const fraction = p.total > 0 ? Math.min(1, p.done / p.total) : 1;
  const rate = elapsedMs > 0 ? ((p.done - (p.resumed ?? 0)) * 1000) / elapsedMs : 0;
  const eta = p.done >= p.total ? 'done' : rate > 0 ? `ETA ${seconds((p.total - p.done) / rate)}` : 'ETA ?';
  const filled = Math.round(fraction * WIDTH);
  const gauge = bar ? ` [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}]` : '';
  const unit = p.unit ? ` ${p.unit}` : '';
  return `${p.what.padEnd(22)}${gauge} ${num(p.done)}/${num(p.total)}${unit} ${String(Math.floor(fraction * 100)).padStart(3)}%  ${num(rate)}/s  ${eta}`;
}

export function progress(stream: NodeJS.WriteStream = process.stderr, clock: () => number = Date.now): Progress {
  const tty = !!stream.isTTY;
  let current: string | null = null;
  let started = 0;
  let lastPlain = 0;
  let open = false;
  let last: ProgressLine | null = null;
  let finishedShown = false;
  function end(): void {
    if (open) stream.write('\n');
    open = false;
  }
  return {
    update(p) {
      const now = clock();
      if (p.what !== current) {
        // The previous item's final figures, when a plain log skipped them.
        if (!tty && last && last.done < last.total) stream.write(formatProgress(last, now - started, false) + '\n');
        end();
        current = p.what;
        started = now;
        // The first figures of an item are shown at once.
        lastPlain = -Infinity;
        finishedShown = false;
      }
      last = p;
      const finished = p.done >= p.total;
      if (finished && finishedShown) return;
      finishedShown = finished;
      if (tty) {
        stream.write(`\r\x1b[K${formatProgress(p, now - started, true)}`);
        open = true;
        if (finished) end();
      } else if (finished || now - lastPlain >= PLAIN_EVERY_MS) {
        stream.write(formatProgress(p, now - started, false) + '\n');
        lastPlain = now;
        if (finished) last = null;
      }
    },
    end,
  };
}
