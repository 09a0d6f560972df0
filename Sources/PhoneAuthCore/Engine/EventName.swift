/// The `event` of the engine's events (see EventLog).
enum EventName: String, Sendable {
    case signInSucceeded
    case signInFailed
    case passkeyCounterWentBack
    case limitTripped
    case pumpingSuspected
    case lockout
    case numberUnlocked
    case rekeyed
    case codeSent
    case codeDelivered
    case deliveryFailed
    case providerSkipped
    case providerRestored
    case hookCalled
    case eventDeliveryFailed
}
