import ipaddr from 'ipaddr.js'

// IPv4-compatible IPv6 (`::a.b.c.d`, deprecated) is "unicast" to ipaddr.js but reaches the IPv4 host.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96')

/**
 * True only for a globally routable unicast address. Everything else is refused: private,
 * loopback, link-local, unique-local, multicast, unspecified, broadcast, carrier-grade NAT,
 * documentation, and IPv6 forms that embed an IPv4 host (mapped, compatible, 6to4, NAT64, Teredo).
 * Mapped addresses are judged as the IPv4 address they carry.
 */
export function isPublicAddress (address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  const addr = ipaddr.process(address)
  if (addr.kind() === 'ipv6' && addr.match(IPV4_COMPATIBLE)) return false
  return addr.range() === 'unicast'
}

/** An IP literal as the URL parser leaves it (`[::1]` keeps its brackets), or null for a DNS name. */
export function ipLiteral (hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  // The WHATWG URL parser already rewrote decimal, hex and octal IPv4 forms to dotted quads.
  return ipaddr.IPv4.isValidFourPartDecimal(bare) || ipaddr.IPv6.isValid(bare) ? bare : null
}
