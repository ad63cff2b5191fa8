import ipaddr from 'ipaddr.js';

/**
 * The network guard's address table: every address range the guard treats as other
 * than public, in one list, each with where it comes from. An address takes the class
 * of the most specific range holding it; an address in no range is public.
 *
 * - private: the operator may open it (`allow_private_network`): loopback, RFC 1918,
 *   unique-local, carrier-grade NAT.
 * - link_local: refused always, even with the private network allowed: the clouds put
 *   their instance services there (169.254.0.0/16 holds AWS's, GCP's, Azure's, Tencent's…).
 * - metadata: a cloud's documented instance-metadata or host endpoint: refused always.
 * - unusable: not a destination at all (unspecified, multicast, documentation, reserved…): refused always.
 *
 * An IPv6 address that carries an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64,
 * 6to4) is judged by the IPv4 address it carries as well, and takes the stricter class.
 */
export type AddressClass = 'public' | 'private' | 'link_local' | 'metadata' | 'unusable';

interface AddressRange {
  range: string;
  class: Exclude<AddressClass, 'public'>;
  what: string;
  source: string;
}

const IANA_V4 = 'IANA IPv4 Special-Purpose Address Registry';
const IANA_V6 = 'IANA IPv6 Special-Purpose Address Registry';

export const ADDRESS_TABLE: readonly AddressRange[] = [
  // IPv4 (IANA_V4, RFC 6890 and its updates)
  { range: '0.0.0.0/8', class: 'unusable', what: '"this network"', source: IANA_V4 },
  { range: '10.0.0.0/8', class: 'private', what: 'private-use (RFC 1918)', source: IANA_V4 },
  { range: '100.64.0.0/10', class: 'private', what: 'shared address space, carrier-grade NAT (RFC 6598)', source: IANA_V4 },
  { range: '127.0.0.0/8', class: 'private', what: 'loopback', source: IANA_V4 },
  { range: '169.254.0.0/16', class: 'link_local', what: 'link-local, where clouds serve instance metadata', source: IANA_V4 },
  { range: '172.16.0.0/12', class: 'private', what: 'private-use (RFC 1918)', source: IANA_V4 },
  { range: '192.0.0.0/24', class: 'unusable', what: 'IETF protocol assignments', source: IANA_V4 },
  { range: '192.0.2.0/24', class: 'unusable', what: 'documentation (TEST-NET-1)', source: IANA_V4 },
  { range: '192.88.99.0/24', class: 'unusable', what: 'deprecated 6to4 relay anycast', source: IANA_V4 },
  { range: '192.168.0.0/16', class: 'private', what: 'private-use (RFC 1918)', source: IANA_V4 },
  { range: '198.18.0.0/15', class: 'unusable', what: 'benchmarking', source: IANA_V4 },
  { range: '198.51.100.0/24', class: 'unusable', what: 'documentation (TEST-NET-2)', source: IANA_V4 },
  { range: '203.0.113.0/24', class: 'unusable', what: 'documentation (TEST-NET-3)', source: IANA_V4 },
  { range: '224.0.0.0/4', class: 'unusable', what: 'multicast', source: 'IANA IPv4 Multicast Address Space Registry' },
  { range: '240.0.0.0/4', class: 'unusable', what: 'reserved, and the limited broadcast address', source: IANA_V4 },
  // IPv6 (IANA_V6, RFC 6890 and its updates)
  { range: '::/128', class: 'unusable', what: 'unspecified', source: IANA_V6 },
  { range: '::1/128', class: 'private', what: 'loopback', source: IANA_V6 },
  { range: '64:ff9b:1::/48', class: 'private', what: 'local-use IPv4/IPv6 translation (RFC 8215)', source: IANA_V6 },
  { range: '100::/64', class: 'unusable', what: 'discard-only', source: IANA_V6 },
  { range: '2001::/23', class: 'unusable', what: 'IETF protocol assignments (Teredo among them)', source: IANA_V6 },
  { range: '2001:db8::/32', class: 'unusable', what: 'documentation', source: IANA_V6 },
  { range: '3fff::/20', class: 'unusable', what: 'documentation (RFC 9637)', source: IANA_V6 },
  { range: '5f00::/16', class: 'unusable', what: 'segment routing SIDs (RFC 9602)', source: IANA_V6 },
  { range: 'fc00::/7', class: 'private', what: 'unique-local', source: IANA_V6 },
  { range: 'fe80::/10', class: 'link_local', what: 'link-local', source: IANA_V6 },
  { range: 'ff00::/8', class: 'unusable', what: 'multicast', source: 'IANA IPv6 Multicast Address Space Registry' },
  // Cloud endpoints, as each provider documents them.
  { range: '169.254.169.254/32', class: 'metadata', what: 'instance metadata (AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack)', source: 'the providers\u2019 instance-metadata documentation' },
  { range: '169.254.170.2/32', class: 'metadata', what: 'AWS ECS task metadata and credentials', source: 'AWS ECS task metadata endpoint documentation' },
  { range: '169.254.170.23/32', class: 'metadata', what: 'AWS EKS Pod Identity agent', source: 'AWS EKS Pod Identity documentation' },
  { range: 'fd00:ec2::254/128', class: 'metadata', what: 'AWS instance metadata over IPv6', source: 'AWS EC2 instance metadata (IMDS) documentation' },
  { range: 'fd00:ec2::23/128', class: 'metadata', what: 'AWS EKS Pod Identity agent over IPv6', source: 'AWS EKS Pod Identity documentation' },
  { range: 'fd00:ec2::253/128', class: 'metadata', what: 'AWS Route 53 Resolver over IPv6', source: 'AWS VPC DNS documentation' },
  { range: 'fd00:ec2::123/128', class: 'metadata', what: 'Amazon Time Sync over IPv6', source: 'Amazon Time Sync Service documentation' },
  { range: 'fd20:ce::254/128', class: 'metadata', what: 'GCP metadata server over IPv6', source: 'Google Compute Engine metadata server documentation' },
  { range: '100.100.100.200/32', class: 'metadata', what: 'Alibaba Cloud instance metadata', source: 'Alibaba Cloud ECS instance metadata documentation' },
  { range: '168.63.129.16/32', class: 'metadata', what: 'Azure WireServer (host platform endpoint)', source: 'Azure "What is IP address 168.63.129.16" documentation' },
  { range: '192.0.0.192/32', class: 'metadata', what: 'Oracle Cloud legacy instance metadata', source: 'Oracle Cloud Infrastructure instance metadata documentation' },
];

/** Stricter first: an address judged by two ranges (wrapper and carried IPv4) takes the stricter class. */
const STRICTNESS: readonly AddressClass[] = ['public', 'private', 'link_local', 'unusable', 'metadata'];

const PARSED = ADDRESS_TABLE.map((entry) => ({ entry, cidr: ipaddr.parseCIDR(entry.range) }));

/** The table's entry for an address (the most specific range holding it), or null: public. */
export function addressRangeOf(address: string): AddressRange | null {
  const ip = parseAddress(address);
  let best: { entry: AddressRange; bits: number } | null = null;
  for (const { entry, cidr } of PARSED) {
    const [network, bits] = cidr;
    if (network.kind() !== ip.kind() || !ip.match(network, bits)) continue;
    if (!best || bits > best.bits) best = { entry, bits };
  }
  return best?.entry ?? null;
}

/**
 * The class of an IP address, whatever its spelling (brackets and zone ids allowed).
 * Throws on a string that is not an address.
 */
export function classifyAddress(address: string): AddressClass {
  const own = addressRangeOf(address)?.class ?? 'public';
  const carried = carriedIPv4(parseAddress(address));
  if (!carried) return own;
  const inner = addressRangeOf(carried)?.class ?? 'public';
  return STRICTNESS.indexOf(inner) > STRICTNESS.indexOf(own) ? inner : own;
}

function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 {
  return ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or null. */
function carriedIPv4(ip: ipaddr.IPv4 | ipaddr.IPv6): string | null {
  if (ip.kind() !== 'ipv6') return null;
  const parts = (ip as ipaddr.IPv6).parts;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => parts.slice(from, to).every((p) => p === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated; :: and ::1 are not)
  if (zeros(0, 5) && parts[5] === 0xffff) return v4(parts[6]!, parts[7]!);
  if (zeros(0, 6) && (parts[6] !== 0 || parts[7]! > 1)) return v4(parts[6]!, parts[7]!);
  // 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64): the last 32 bits
  if (parts[0] === 0x64 && parts[1] === 0xff9b) return v4(parts[6]!, parts[7]!);
  // 2002::/16 (6to4): bits 16-47
  if (parts[0] === 0x2002) return v4(parts[1]!, parts[2]!);
  return null;
}
