import PhoneAuthCore

/// A blocking hook's name, as Firebase's blocking functions name them (docs/API.md, "Hooks").
public enum BlockingHook: String, Sendable, CaseIterable {
    /// Before a sign-in writes a new user; may set its display name, disabled flag and custom claims.
    case beforeCreate
    /// Before a sign-in (also a second factor's, a number linked or changed) opens its session;
    /// may also set claims for that session's ID tokens only.
    case beforeSignIn
    /// Before an SMS code is counted or sent: sign-in, second-factor sign-in and enrolment.
    case beforeSendSms

    var core: HookName {
        switch self {
        case .beforeCreate: .beforeCreate
        case .beforeSignIn: .beforeSignIn
        case .beforeSendSms: .beforeSendSms
        }
    }
}
