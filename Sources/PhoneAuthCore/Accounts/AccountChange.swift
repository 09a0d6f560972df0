/// What `redeemForAccount` does with a verified phone number.
package enum AccountChange: Sendable {
    /// Adds the number to a user without one; if another user has it, the verification becomes
    /// `proof`, with which the caller may sign in to that user instead.
    case link(proof: TemporaryProof)
    /// Replaces the user's number; if another user has the new one, `proof` as for `link`.
    case updatePhoneNumber(proof: TemporaryProof)
    /// The number must be the user's own.
    case reauthenticate
    case enrollPhone(NewFactor)
}

extension AccountChange {
    /// The call it is, for a retry to be recognised as the same call (EarlierUse).
    var call: EarlierUse.Call {
        switch self {
        case .link: .link
        case .updatePhoneNumber: .updatePhoneNumber
        case .reauthenticate: .reauthenticate
        case .enrollPhone: .enrollPhone
        }
    }
}
