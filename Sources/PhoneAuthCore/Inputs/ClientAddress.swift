import Glibc

/// The end user's IP address, which the per-IP limits count. Only an IPv4 or IPv6 address is
/// one: anything else is refused, so a caller cannot dodge the limits with a made-up key.
package struct ClientAddress: Sendable, Equatable {
    /// As given (events and logs show it).
    package let text: String
    /// What the per-IP limits count it as: an IPv4 address in dotted form (also when written
    /// IPv4-mapped, ::ffff:a.b.c.d), an IPv6 address by its /64 network, which one client usually
    /// holds whole.
    package let limitKey: String

    package init(_ text: String, field: String = "clientIp") throws(PhoneAuthError) {
        guard let key = Self.limitKey(text) else {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(field)' must be an IPv4 or IPv6 address.",
                details: [("field", .string(field))])
        }
        self.text = text
        limitKey = key
    }

    /// nil stays nil: an optional parameter.
    package init?(_ text: String?, field: String = "clientIp") throws(PhoneAuthError) {
        guard let text else { return nil }
        try self.init(text, field: field)
    }

    private static func limitKey(_ text: String) -> String? {
        guard text.utf8.count <= 45 else { return nil }
        var v4 = in_addr(), v6 = in6_addr()
        var bytes: [UInt8]
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            guard bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff else {
                let groups = stride(from: 0, to: 8, by: 2).map {
                    String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
                }
                return groups.joined(separator: ":") + "::/64"
            }
            bytes = Array(bytes[12..<16])
        } else {
            return nil
        }
        return bytes.map { String($0) }.joined(separator: ".")
    }
}
