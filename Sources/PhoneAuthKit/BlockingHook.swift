import PhoneAuthCore

/// A blocking hook's name, as Firebase's blocking functions name them (docs/API.md, "Hooks").
public enum BlockingHook: String, Sendable, CaseIterable {
    /// Before an SMS code is counted or sent: sign-in, second-factor sign-in and enrolment.
    case beforeSendSms

    var core: HookName {
        switch self {
        case .beforeSendSms: .beforeSendSms
        }
    }
}
