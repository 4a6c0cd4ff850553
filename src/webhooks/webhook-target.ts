import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may not reach unless WEBHOOK_ALLOW_PRIVATE_TARGETS is true: loopback,
 * private, link-local, unique-local, unspecified, and the other ranges that are not the
 * public internet (shared CGNAT space, multicast, reserved, documentation). An IPv6 address
 * that carries an IPv4 one (see embeddedIpv4) is judged by the IPv4 address it carries.
 * Requests to them from inside the network are the SSRF risk.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** Whether `address` (an IPv4 or IPv6 literal) is one a webhook may not reach by default. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  if (embeddedIpv4(groups).some((embedded) => isPrivateAddress(embedded))) return true;
  return blocked.check(address.replace(/%.*$/, ''), 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 literal, in any spelling (`::`, dotted tail, zone). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((group) => parseInt(group, 16));
  const [head, tail] = text.split('::');
  if (tail === undefined) return parse(head);
  const before = parse(head);
  const after = parse(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/**
 * Every IPv4 address an IPv6 address may reach through a translation or tunnel: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96), SIIT (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, and
 * the local-use 64:ff9b:1::/48 at each RFC 6052 prefix length it may be run with: 48, 56, 64
 * and 96), 6to4 (2002::/16) and Teredo's client (2001::/32, stored inverted).
 */
function embeddedIpv4(g: number[]): string[] {
  const v4 = (octets: number[]): string => octets.join('.');
  const last32 = v4([g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255]);
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const found: string[] = [];
  if (zero(0, 5) && (g[5] === 0 || g[5] === 0xffff)) found.push(last32);
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) found.push(last32);
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) found.push(last32);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    found.push(
      v4([g[3] >> 8, g[3] & 255, g[4] & 255, g[5] >> 8]),
      v4([g[3] & 255, g[4] & 255, g[5] >> 8, g[5] & 255]),
      v4([g[4] & 255, g[5] >> 8, g[5] & 255, g[6] >> 8]),
      last32,
    );
  }
  if (g[0] === 0x2002) found.push(v4([g[1] >> 8, g[1] & 255, g[2] >> 8, g[2] & 255]));
  if (g[0] === 0x2001 && g[1] === 0) {
    const client = [g[6] ^ 0xffff, g[7] ^ 0xffff];
    found.push(v4([client[0] >> 8, client[0] & 255, client[1] >> 8, client[1] & 255]));
  }
  return found;
}

/** A URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses. */
export type HostLookup = (host: string) => Promise<ResolvedAddress[]>;

const systemLookup: HostLookup = (host) => lookup(host, { all: true, verbatim: true });

/**
 * The addresses a host resolves to, refused when any of them is private (unless allowed): a
 * name with one public and one private address could otherwise be steered to the private one.
 */
export async function resolveTarget(
  host: string,
  allowPrivate: boolean,
  lookupHost: HostLookup = systemLookup,
): Promise<ResolvedAddress[]> {
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await lookupHost(host);
  if (addresses.length === 0) throw new TargetError(`${host} does not resolve`);
  if (!allowPrivate && addresses.some((entry) => isPrivateAddress(entry.address))) {
    throw new TargetError('the target is a private, loopback or link-local address');
  }
  return addresses;
}

/** A target the rules refuse, or that cannot be resolved. */
export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}
