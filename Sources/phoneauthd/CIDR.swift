import Glibc

/// An IPv4 or IPv6 address as 4 or 16 bytes (an IPv4-mapped IPv6 address counts as IPv4).
struct IPAddress: Equatable {
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            let all = withUnsafeBytes(of: &v6) { Array($0) }
            bytes = all[0..<12].elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) ? Array(all[12...]) : all
        } else {
            return nil
        }
    }

    var isLoopback: Bool { bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1] }
}

/// A block of addresses ("10.0.0.0/8", "::1/128", or one address) whose X-Forwarded-For is believed.
struct CIDR {
    let network: [UInt8]
    let prefixLength: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = IPAddress(String(parts[0])) else { return nil }
        let bits = address.bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...bits).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = bits
        }
        network = address.bytes
    }

    func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == network.count else { return false }
        var remaining = prefixLength
        for (a, n) in zip(address.bytes, network) where remaining > 0 {
            let mask: UInt8 = remaining >= 8 ? 0xff : ~(0xff >> UInt8(remaining))
            if a & mask != n & mask { return false }
            remaining -= 8
        }
        return true
    }
}
