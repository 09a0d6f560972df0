import Glibc

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
            var endpoint = HTTPEndpoint(
                name: name.rawValue, baseUrl: try ProviderSettings.checkURL(url, key: "\(path).url"))
            endpoint.timeoutMs = Int(try r.int("timeoutMs", in: 100...60_000) ?? defaultTimeoutMs)
            endpoint.connectTimeoutMs = Int(
                try r.int("connectTimeoutMs", in: 100...60_000) ?? Int64(min(5000, endpoint.timeoutMs)))
            if let caFile = try r.string("caFile") {
                guard !caFile.isEmpty, access(caFile, R_OK) == 0 else {
                    throw EngineConfig.bad("\(path).caFile", "must name a PEM file this process can read")
                }
                endpoint.caFile = caFile
            }
            settings.endpoint = endpoint
        } else if r.value("timeoutMs") != nil || r.value("connectTimeoutMs") != nil || r.value("caFile") != nil {
            throw EngineConfig.bad("\(path).url", "is required with timeoutMs, connectTimeoutMs or caFile")
        }
        return settings
    }
}
