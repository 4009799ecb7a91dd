import { describe, expect, it } from 'vitest';
import type { PeerCertificate } from '../net/outbound.js';
import { judgeCertificate } from './tls-expiry.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-10T12:00:00Z');
const cert = (over: Partial<PeerCertificate>): PeerCertificate => ({ validFrom: NOW - 90 * DAY, validTo: NOW + 90 * DAY, subject: 'example.test', authorized: true, authorizationError: null, ...over });

describe('judgeCertificate', () => {
  it('alerts within N days, counting whole days left, and not before', () => {
    expect(judgeCertificate(cert({ validTo: NOW + 14 * DAY }), 'example.test', 14, NOW)).toEqual({
      tls_expires_at: NOW + 14 * DAY,
      tls_days_left: 14,
      tls_alert: 'The TLS certificate of example.test expires in 14 days, on 2026-03-24 12:00:00 UTC',
    });
    expect(judgeCertificate(cert({ validTo: NOW + 14 * DAY + 1 }), 'example.test', 14, NOW).tls_alert).toBeNull();
    expect(judgeCertificate(cert({ validTo: NOW + DAY / 2 }), 'example.test', 1, NOW)).toMatchObject({ tls_days_left: 0, tls_alert: expect.stringMatching(/expires in 0 days/) });
  });

  it('an expired certificate alerts whatever N is, with negative days left', () => {
    const expired = cert({ validTo: NOW - 2 * DAY, authorized: false, authorizationError: 'CERT_HAS_EXPIRED' });
    expect(judgeCertificate(expired, 'example.test', 1, NOW)).toEqual({
      tls_expires_at: NOW - 2 * DAY,
      tls_days_left: -2,
      tls_alert: 'The TLS certificate of example.test expired on 2026-03-08 12:00:00 UTC',
    });
  });

  it('a certificate that does not verify alerts even when it lasts long, naming the reason', () => {
    const r = judgeCertificate(cert({ authorized: false, authorizationError: 'ERR_TLS_CERT_ALTNAME_INVALID' }), 'example.test', 7, NOW);
    expect(r.tls_alert).toBe('The TLS certificate of example.test is not valid (ERR_TLS_CERT_ALTNAME_INVALID); it expires on 2026-06-08 12:00:00 UTC');
  });
});
