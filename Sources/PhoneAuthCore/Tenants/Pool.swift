/// What a verification or sign-in uses of one user pool: the default pool's from the engine's
/// configuration, a tenant's from its settings over the configuration's.
package struct Pool: Sendable {
    package let tenant: TenantID
    package let testPhoneNumbers: [String: String]
    /// The tenant's region policy, checked after the engine's (nil: the engine's alone).
    let regionPolicy: AbusePolicy.RegionPolicy?
    let secondFactors: Set<FactorKind>?
    /// The tenant's pumping-defense settings, over the engine's (nil: the engine's alone).
    let pumping: TenantPumping?
    /// The pool's passkeys settings: a tenant's own, else the engine's (nil: passkeys are off).
    let passkeys: PasskeySettings?
    /// The texts with the pool's app name.
    let smsText: SMSText
    let voiceText: VoiceText

    func allowsRegion(_ region: String) -> Bool { regionPolicy?.allows(region) ?? true }

    /// Whether users of the pool may enrol a factor of this kind.
    func allows(_ kind: FactorKind) -> Bool { secondFactors?.contains(kind) ?? true }
}
