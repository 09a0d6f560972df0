/// The blocking hooks, as Firebase's blocking functions name them: each runs at its point of a
/// flow, and may refuse it. `beforeSendSms` runs before any SMS code is counted or sent.
/// (beforeCreate and beforeSignIn are not built yet: their names are refused until they are.)
package enum HookName: String, CaseIterable, Sendable {
    case beforeSendSms
}
