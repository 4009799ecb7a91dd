// The TLS expiry alert of a schedule (spec.checks.tls_expiry_alert_days): at each run, the
// certificate of the target's server is read and judged. The certificate is the one the run's own
// request saw; when the request got no answer (an invalid certificate fails it), a TLS connection to
// the same host and port, through the same outbound policy, reads it instead.
import type { OutboundClient, PeerCertificate } from '../net/outbound.js';
import type { ScheduleLogRecord } from '../store/types.js';
import { formatTimestamp } from '../util/time.js';

const DAY_MS = 86_400_000;

export type TlsReading = Pick<ScheduleLogRecord, 'tls_expires_at' | 'tls_days_left' | 'tls_alert'>;

/**
 * What a run records about the certificate: when it expires, the whole days left, and why the
 * alert fires: already expired, not valid (untrusted, wrong host, not yet valid), or expiring
 * within `alertDays`. Null alert: the certificate is good for longer.
 */
export function judgeCertificate(cert: PeerCertificate, host: string, alertDays: number, now: number): TlsReading {
  const left = Math.floor((cert.validTo - now) / DAY_MS);
  const until = `${formatTimestamp(cert.validTo)} UTC`;
  let alert: string | null = null;
  if (cert.validTo <= now) alert = `The TLS certificate of ${host} expired on ${until}`;
  else if (!cert.authorized) alert = `The TLS certificate of ${host} is not valid (${cert.authorizationError ?? 'not trusted'}); it expires on ${until}`;
  else if (cert.validTo - now <= alertDays * DAY_MS) alert = `The TLS certificate of ${host} expires in ${left} day${left === 1 ? '' : 's'}, on ${until}`;
  return { tls_expires_at: cert.validTo, tls_days_left: left, tls_alert: alert };
}

/**
 * The reading of a run of an https URL (null for another scheme, or when no TLS connection could
 * be made at all: the run's error says why). `seen` is the certificate the run's request saw.
 */
export async function readTargetCertificate(http: OutboundClient, url: string, seen: PeerCertificate | undefined, opts: { alertDays: number; now: number; timeoutMs: number }): Promise<TlsReading | null> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return null;
  }
  if (target.protocol !== 'https:') return null;
  const cert = seen ?? (await http.certificate(url, { timeoutMs: opts.timeoutMs }).catch(() => undefined));
  return cert ? judgeCertificate(cert, target.host, opts.alertDays, opts.now) : null;
}
