/// What a second factor is, as `factor_id` columns, `factorId` fields and the
/// `sign_in_second_factor` claim name it.
package enum FactorKind: String, Sendable, CaseIterable {
    /// A phone number that receives codes by SMS.
    case phone
    /// A TOTP authenticator.
    case totp
}
