// SPF, DKIM and DMARC of a received message, computed here with mailauth. A check is `true` when
// it passed, `false` when it was computed and did not pass (fail, softfail, none...), and `null`
// when it could not be computed (DNS unreachable, checks turned off, or no scanner: spam, virus).
// Nothing is ever reported as passed that was not verified.
import { Resolver } from 'node:dns/promises';
import { lazyImport } from '@capture/sdk/async';

/** Answers like `dns.promises.resolve(name, rrtype)`. */
export type DnsResolver = (name: string, rrtype: string) => Promise<unknown>;

export type CheckValue = boolean | null;

export interface MailChecks {
  checks: Record<'spf' | 'dkim' | 'dmarc' | 'spam' | 'virus', CheckValue>;
  /** The result behind each check, e.g. `pass`, `softfail`, `temperror`, `not scanned`. */
  detail: Record<string, string>;
}

export interface CheckInput {
  raw: Buffer;
  ip: string;
  helo: string;
  /** Envelope sender; '' for the null sender. */
  sender: string;
  /** This server's name (EMAIL_DOMAIN). */
  mta: string;
}

const NOT_SCANNED = { spam: 'not scanned', virus: 'not scanned' };

/** The system resolver with a short timeout, so a capture never waits long on DNS. */
export function systemResolver(timeoutMs = 3000): DnsResolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 1 });
  return (name, rrtype) => resolver.resolve(name, rrtype);
}

function verdict(result: string | undefined): CheckValue {
  if (!result) return null;
  if (result === 'pass') return true;
  if (result === 'temperror' || result === 'temperr' || result === 'skipped') return null;
  return false;
}

export function uncheckedResult(reason: string): MailChecks {
  return {
    checks: { spf: null, dkim: null, dmarc: null, spam: null, virus: null },
    detail: { spf: reason, dkim: reason, dmarc: reason, ...NOT_SCANNED },
  };
}

// mailauth takes a third of a second to import: loaded with the first message, not at start-up.
const loadMailauth = lazyImport(() => import('mailauth'));

export async function checkMessage(input: CheckInput, resolver: DnsResolver, timeoutMs = 10_000): Promise<MailChecks> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const { authenticate } = await loadMailauth();
    const result = await Promise.race([
      authenticate(input.raw, {
        ip: input.ip,
        helo: input.helo,
        sender: input.sender,
        mta: input.mta,
        resolver: resolver as never,
        disableArc: true,
        disableBimi: true,
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
    const spf = result.spf ? result.spf.status.result : undefined;
    const sigs = result.dkim?.results ?? [];
    // DKIM passes when one signature verifies; unknown when none could be checked for lack of DNS.
    const dkim = sigs.length === 0 ? 'none' : sigs.some((s) => s.status.result === 'pass') ? 'pass' : (sigs.find((s) => verdict(s.status.result) === false) ?? sigs[0]!).status.result;
    const dmarc = result.dmarc ? result.dmarc.status.result : undefined;
    return {
      checks: { spf: verdict(spf), dkim: verdict(dkim), dmarc: verdict(dmarc), spam: null, virus: null },
      detail: { spf: spf ?? 'not checked', dkim, dmarc: dmarc ?? 'not checked', ...NOT_SCANNED },
    };
  } catch (err) {
    return uncheckedResult(`not checked: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    clearTimeout(timer);
  }
}
