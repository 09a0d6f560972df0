import Glibc

/// The end user's IP address, which the per-IP limits count. Only an IPv4 or IPv6 address is
/// one: anything else is refused, so a caller cannot dodge the limits with a made-up key.
/// With it, the User-Agent of the end user's request, which blocking hooks are told.
package struct ClientAddress: Sendable, Equatable {
    /// As given (events and logs show it).
    package let text: String
    /// The `User-Agent` the end user's request carried (hooks' `user_agent`); nil: none given.
    package let userAgent: String?
    /// A User-Agent longer than this is refused (a server cuts its request's header to it).
    package static let maxUserAgentBytes = 512
    /// What the per-IP limits count it as: an IPv4 address in dotted form (also when written
    /// IPv4-mapped, ::ffff:a.b.c.d), an IPv6 address by its /64 network, which one client usually
    /// holds whole.
    package let limitKey: String

    /// The address's bytes: 4 for IPv4 (also when written IPv4-mapped), else 16.
    package let bytes: [UInt8]

    package init(_ text: String, userAgent: String? = nil, field: String = "clientIp") throws(PhoneAuthError) {
        guard let bytes = Self.bytes(text) else {
            throw PhoneAuthError(
                .invalidArgument, "The field '\(field)' must be an IPv4 or IPv6 address.",
                details: [("field", .string(field))])
        }
        if let userAgent, userAgent.utf8.count > Self.maxUserAgentBytes {
            throw PhoneAuthError(
                .invalidArgument, "The field 'userAgent' is over \(Self.maxUserAgentBytes) bytes.",
                details: [("field", .string("userAgent"))])
        }
        self.text = text
        self.userAgent = userAgent
        self.bytes = bytes
        limitKey = bytes.count == 4 ? Self.dotted(bytes) : Self.groups(bytes, 4) + "::/64"
    }

    /// A loopback, private or link-local address (127/8, 10/8, 172.16/12, 192.168/16, 169.254/16,
    /// ::1, fc00::/7, fe80::/10): a proxy's or a test's, which says nothing of the client's network.
    package var isPrivate: Bool {
        if bytes.count == 4 {
            let (a, b) = (bytes[0], bytes[1])
            return a == 127 || a == 10 || (a == 172 && b & 0xf0 == 16) || (a == 192 && b == 168)
                || (a == 169 && b == 254)
        }
        return bytes == [UInt8](repeating: 0, count: 15) + [1] || bytes[0] & 0xfe == 0xfc
            || (bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80)
    }

    /// The network the address is in as the pumping defense counts it: an IPv4 /24, an IPv6 /48
    /// (what one operator usually hands out whole).
    package var network: String {
        bytes.count == 4 ? Self.dotted(bytes[0..<3] + [0]) + "/24" : Self.groups(bytes, 3) + "::/48"
    }

    /// nil stays nil: an optional parameter. A User-Agent comes with the address it was seen
    /// from, as a server sees both: alone it is refused.
    package init?(_ text: String?, userAgent: String? = nil, field: String = "clientIp") throws(PhoneAuthError) {
        guard let text else {
            guard userAgent == nil else {
                throw PhoneAuthError(
                    .invalidArgument, "The field 'userAgent' is given only with '\(field)'.",
                    details: [("field", .string("userAgent"))])
            }
            return nil
        }
        try self.init(text, userAgent: userAgent, field: field)
    }

    private static func bytes(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 45 else { return nil }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        let mapped = bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff
        return mapped ? Array(bytes[12..<16]) : bytes
    }

    private static func dotted(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { String($0) }.joined(separator: ".")
    }

    /// The first `count` 16-bit groups, in hex.
    private static func groups(_ bytes: [UInt8], _ count: Int) -> String {
        stride(from: 0, to: count * 2, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}
