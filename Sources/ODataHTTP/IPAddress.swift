#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as bytes, read from its text (no name lookup): for `no_proxy` and loopback checks.
struct IPAddress: Sendable, Hashable {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    var bytes: [UInt8]

    /// Parses `10.1.2.3` or `fe80::1` (no brackets, no zone); nil for anything else, names included.
    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    var isIPv4: Bool { bytes.count == 4 }

    /// `127.0.0.0/8`, `::1`, or an IPv4-mapped `::ffff:127.x.x.x`.
    var isLoopback: Bool {
        if isIPv4 { return bytes[0] == 127 }
        if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }

    /// Whether the first `bits` bits of both addresses agree (same family only; `bits` past the length means all).
    func matches(_ other: IPAddress, prefixBits bits: Int) -> Bool {
        guard bytes.count == other.bytes.count else { return false }
        var remaining = min(max(bits, 0), bytes.count * 8)
        for (mine, theirs) in zip(bytes, other.bytes) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            guard mine & mask == theirs & mask else { return false }
            remaining -= 8
        }
        return true
    }
}
