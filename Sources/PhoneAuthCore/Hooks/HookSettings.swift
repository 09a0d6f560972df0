/// One hook's configuration (`hooks.<name>`): its HTTP endpoint, if it is one, and what a failure
/// to answer means.
package struct HookSettings: Sendable {
    package enum OnError: String, Sendable {
        case deny, allow
    }

    /// The function's URL (the JWT's `aud`), for an HTTP hook; a host's in-process hook needs none.
    package var endpoint: HTTPEndpoint?
    package var onError = OnError.deny

    static let defaultTimeoutMs: Int64 = 7000

    static func read(_ r: ObjectReader, name: HookName) throws(PhoneAuthError) -> HookSettings {
        let path = "hooks.\(name.rawValue)"
        try r.rejectUnknown(["url", "timeoutMs", "connectTimeoutMs", "caFile", "onError"])
        var settings = HookSettings()
        if let onError = try r.string("onError") {
            guard let value = OnError(rawValue: onError) else {
                throw EngineConfig.bad("\(path).onError", "must be \"deny\" or \"allow\"")
            }
            settings.onError = value
        }
        if let url = try r.string("url") {
            settings.endpoint = try HTTPEndpoint.read(
                r, path: path, type: name.rawValue, url: (url, "url"), defaultTimeoutMs: defaultTimeoutMs,
                maxTimeoutMs: 60_000)
        } else if r.value("timeoutMs") != nil || r.value("connectTimeoutMs") != nil || r.value("caFile") != nil {
            throw EngineConfig.bad("\(path).url", "is required with timeoutMs, connectTimeoutMs or caFile")
        }
        return settings
    }
}
