/// The blocking hooks, as Firebase's blocking functions name them: each runs at its point of a
/// flow, and may refuse it. `beforeSendSms` runs before any SMS code is counted or sent;
/// `beforeCreate` before a sign-in writes a new user; `beforeSignIn` before a sign-in (or a
/// number linked or changed) opens its session.
package enum HookName: String, CaseIterable, Sendable {
    case beforeCreate, beforeSignIn, beforeSendSms
}
