// A histogram for the capture hot path. prom-client's observe() hashes its labels and validates the
// value on every call (hundreds of ns); this one only finds the bucket in a short array and adds,
// and writes its Prometheus text at scrape time.

export class FastHistogram {
  private readonly counts: Float64Array;
  private sum = 0;
  private count = 0;

  /** `bounds`: the buckets' upper bounds, ascending (+Inf is implied). */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]!) i++;
    if (i < b.length) this.counts[i]!++;
    this.sum += value;
    this.count++;
  }

  /** The text exposition: cumulative buckets, +Inf, sum and count. */
  expose(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    let cumulative = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      cumulative += this.counts[i]!;
      lines.push(`${this.name}_bucket{le="${this.bounds[i]}"} ${cumulative}`);
    }
    lines.push(`${this.name}_bucket{le="+Inf"} ${this.count}`, `${this.name}_sum ${this.sum}`, `${this.name}_count ${this.count}`);
    return lines.join('\n') + '\n';
  }
}
