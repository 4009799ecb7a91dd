// IPv6 addresses that carry an IPv4 address reach that IPv4 host (through the kernel, a NAT64
// gateway or a tunnel), so the outbound policy classifies them by the IPv4 inside. Parsing into
// groups first makes every textual form (compressed, expanded, dotted tail, upper case, zone id)
// land on the same rule.
import net from 'node:net';

/** The eight 16-bit groups of an IPv6 address in any textual form, or null when it is not one. */
export function ipv6Groups(address: string): number[] | null {
  if (net.isIP(address) !== 6) return null;
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** The uncompressed lower-case text of an IPv6 address, so that lookups by string see one form. */
export function canonicalIpv6(groups: number[]): string {
  return groups.map((g) => g.toString(16)).join(':');
}

const dottedQuad = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
const zero = (groups: number[], from: number, to: number) => groups.slice(from, to).every((g) => g === 0);

/**
 * The IPv4 address an IPv6 address embeds, or null: IPv4-mapped ::ffff:0:0/96, IPv4-translated
 * ::ffff:0:0:0/96 (RFC 2765), IPv4-compatible ::/96 (except :: and ::1), NAT64 64:ff9b::/96
 * (RFC 6052) and its local-use 64:ff9b:1::/48 (RFC 8215, IPv4 in the last 32 bits as with a /96
 * prefix), 6to4 2002::/16 (bits 16-47) and Teredo 2001::/32 (the client address, bit-inverted, in
 * the last 32 bits).
 */
export function embeddedIpv4(groups: number[]): string | null {
  const [g0, g1, g2, , g4, g5, g6 = 0, g7 = 0] = groups;
  const last32 = dottedQuad(g6, g7);
  if (zero(groups, 0, 5) && g5 === 0xffff) return last32;
  if (zero(groups, 0, 4) && g4 === 0xffff && g5 === 0) return last32;
  if (zero(groups, 0, 6) && !(g6 === 0 && g7 <= 1)) return last32;
  if (g0 === 0x64 && g1 === 0xff9b && zero(groups, 2, 6)) return last32;
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return last32;
  if (g0 === 0x2002) return dottedQuad(groups[1]!, g2!);
  if (g0 === 0x2001 && g1 === 0) return dottedQuad(~g6 & 0xffff, ~g7 & 0xffff);
  return null;
}
