/// An IP network in CIDR notation ("198.51.100.0/24", "2001:db8::/32"), for allow lists.
package struct IPNetwork: Sendable, Hashable {
    package let text: String
    private let bytes: [UInt8]
    private let length: Int

    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let length = Int(parts[1]), let address = try? ClientAddress(String(parts[0]))
        else { return nil }
        guard length >= 0, length <= address.bytes.count * 8 else { return nil }
        self.text = text
        bytes = address.bytes
        self.length = length
    }

    /// Whether `address` is in the network (an IPv4 address is never in an IPv6 network).
    package func contains(_ address: ClientAddress) -> Bool {
        guard address.bytes.count == bytes.count else { return false }
        var left = length
        for (a, b) in zip(address.bytes, bytes) where left > 0 {
            let bits = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            guard a & mask == b & mask else { return false }
            left -= bits
        }
        return true
    }
}
