/// What the pumping defense counts a send against: the destination's prefix (its number without
/// the last 4 digits: about ten thousand numbers), its country, and the client's network (an
/// IPv4 /24, an IPv6 /48). Each costs a row written per send and per entered code.
package struct PumpingScope: Sendable, Hashable {
    /// In the order a send's scopes are judged, narrowest first: a decision names the narrowest
    /// that tripped.
    package enum Kind: String, Sendable, CaseIterable {
        case prefix, country, network

        /// The key's first letter in the store.
        var tag: String {
            switch self {
            case .prefix: "p"
            case .country: "c"
            case .network: "n"
            }
        }
    }

    package let kind: Kind
    /// "+99890123", "UZ", "203.0.113.0/24".
    package let name: String

    /// The row's key in `pumping_scopes`.
    var key: String { kind.tag + ":" + name }

    /// The scopes a send to `phone` from `address` counts in, narrowest first. A private address
    /// (a proxy's, loopback) names no network: every user behind it would share one.
    static func of(_ phone: PhoneNumber, from address: ClientAddress?) -> [PumpingScope] {
        let digits = phone.e164.utf8.count - 1
        var scopes = [
            PumpingScope(kind: .prefix, name: String(phone.e164.prefix(1 + max(4, digits - 4)))),
            PumpingScope(kind: .country, name: phone.region),
        ]
        if let address, !address.isPrivate { scopes.append(PumpingScope(kind: .network, name: address.network)) }
        return scopes
    }
}
