import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses a webhook may reach. A customer-supplied URL must not become a way into the
 * service's own network (metadata endpoints, databases, admin ports), so anything that is not a
 * public unicast address is refused. Applied to the address actually connected to, never the name.
 */

type V4Range = [base: number, bits: number, reason: string];

const v4 = (s: string) => s.split('.').reduce((n, o) => (n * 256) + Number(o), 0);

const V4_RANGES: V4Range[] = [
  [v4('0.0.0.0'), 8, 'unspecified'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'carrier-grade NAT'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link-local'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'reserved'],
  [v4('192.0.2.0'), 24, 'documentation'],
  [v4('192.88.99.0'), 24, 'reserved'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'reserved'],
  [v4('198.51.100.0'), 24, 'documentation'],
  [v4('203.0.113.0'), 24, 'documentation'],
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('255.255.255.255'), 32, 'broadcast'],
  [v4('240.0.0.0'), 4, 'reserved'],
];

function v4Reason(n: number): string | null {
  for (const [base, bits, reason] of V4_RANGES) {
    const size = 2 ** (32 - bits);
    if (n >= base && n < base + size) return reason;
  }
  return null;
}

/** 16 bytes of an IPv6 address, or null. Accepts `::`, an embedded dotted quad and a zone suffix. */
function parseV6(input: string): number[] | null {
  let s = input.replace(/^\[|\]$/g, '');
  const pct = s.indexOf('%');
  if (pct >= 0) s = s.slice(0, pct);
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.', lastColon)) {
    const n = v4(s.slice(lastColon + 1));
    s = `${s.slice(0, lastColon + 1)}${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, null];
  const parse = (p: string) => (p === '' ? [] : p.split(':').map((g) => parseInt(g, 16)));
  const h = parse(head);
  const r = rest === null ? [] : parse(rest);
  const fill = 8 - h.length - r.length;
  if (fill < 0 || (rest === null && fill !== 0)) return null;
  const groups = [...h, ...new Array(fill).fill(0), ...r];
  return groups.flatMap((g) => [g >> 8, g & 0xff]);
}

const embeddedV4 = (b: number[], at: number) => ((b[at] << 24) >>> 0) + (b[at + 1] << 16) + (b[at + 2] << 8) + b[at + 3];

function v6Reason(b: number[]): string | null {
  const zeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(16)) return 'unspecified';
  if (zeroUpTo(15) && b[15] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d): judged as the IPv4 address
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return v4Reason(embeddedV4(b, 12));
  if (zeroUpTo(12)) return v4Reason(embeddedV4(b, 12));
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach the IPv4 address they embed
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b.slice(4, 12).every((x) => x === 0)) return v4Reason(embeddedV4(b, 12));
  if (b[0] === 0x20 && b[1] === 0x02) return v4Reason(embeddedV4(b, 2));
  if (b[0] === 0xff) return 'multicast';
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return 'link-local';
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return 'site-local';
  if ((b[0] & 0xfe) === 0xfc) return 'unique-local';
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return 'documentation';
  if (b[0] === 0x01 && b.slice(1, 8).every((x) => x === 0)) return 'discard';
  return null;
}

/** Why an address may not be reached (e.g. "private"), or null for a public unicast address. */
export function forbiddenReason(address: string): string | null {
  if (isIPv4(address)) return v4Reason(v4(address));
  const b = parseV6(address);
  return b ? v6Reason(b) : 'not an IP address';
}
