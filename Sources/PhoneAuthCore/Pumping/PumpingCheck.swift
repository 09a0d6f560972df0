/// What the store needs to judge a new send (see PumpingJudge): the policy, the scopes the send
/// counts in, and the destination the decision names.
package struct PumpingCheck: Sendable {
    var policy: PumpingPolicy
    var scopes: [PumpingScope]
    /// The scopes' keys in `pumping_scopes`, made once: a send reads them twice and stores them.
    let scopeKeys: [String]
    var phone: PhoneNumber
    var tenant: TenantID
    var channel: Channel
    /// The captcha provider's rating of the send, when pumping.tollFraud asked for one.
    var tollFraudRisk: Double?

    /// nil when the policy does not judge this send (off, or an allowed destination or network).
    init?(
        _ policy: PumpingPolicy, phone: PhoneNumber, channel: Channel, from address: ClientAddress?, tenant: TenantID,
        tollFraudRisk: Double? = nil
    ) {
        guard policy.judges(phone, from: address) else { return nil }
        self.policy = policy
        scopes = PumpingScope.of(phone, from: address)
        scopeKeys = scopes.map(\.key)
        self.phone = phone
        self.tenant = tenant
        self.channel = channel
        self.tollFraudRisk = tollFraudRisk
    }

    /// The scopes as the verification's row keeps them, to credit when its code is entered.
    var keys: String { scopeKeys.joined(separator: " ") }

    /// The scope keys of a verification's row, as `keys` wrote them. Split on the bytes: the
    /// collection's split costs a sign-in thousands of instructions more.
    static func keys(_ text: String) -> [String] {
        text.utf8.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
    }
}
