import PhoneAuthCore

/// One of the engine's events (docs/API.md, "Log sink"): a sign-in, a failure, a limit tripped, a
/// lockout, an SMS sent or failed. Numbers are masked to their last four digits; codes, secrets
/// and tokens never appear, so an event can be logged as it is.
public struct Event: Sendable, CustomStringConvertible {
    private let value: JSONValue

    init(_ value: JSONValue) { self.value = value }

    /// What happened: `signInSucceeded`, `signInFailed`, `limitTripped`, `lockout`, `codeSent`,
    /// `deliveryFailed`, …
    public var name: String { value["event"]?.stringValue ?? "" }

    /// When, as an RFC 3339 time in UTC with milliseconds.
    public var time: String { value["time"]?.stringValue ?? "" }

    /// A text field of the event (`uid`, `phoneNumber` masked, `limit`, `reason`, …), if it has one.
    public func string(_ field: String) -> String? { value[field]?.stringValue }

    /// A whole-number field of the event (`retryAfterSeconds`, `attempt`, …), if it has one.
    public func int(_ field: String) -> Int? { value[field]?.intValue.map { Int($0) } }

    /// A true-or-false field of the event (`isNewUser`, …), if it has one.
    public func bool(_ field: String) -> Bool? {
        if case let .bool(flag)? = value[field] { return flag }
        return nil
    }

    /// The whole event as the JSON text of an object, as the C ABI's log sink receives it.
    public var json: String { JSONCodec.serialize(value) }

    /// The JSON text.
    public var description: String { json }
}
