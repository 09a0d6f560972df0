/// A secret in the configuration (a provider's token, a webhook's signing key): given inline or
/// by the name of an environment variable, so it need not sit in a file.
enum ConfiguredSecret {
    /// A secret given inline (`key`) or by the name of an environment variable (`keyEnv`), read now.
    static func read(_ r: ObjectReader, _ key: String, path: String) throws(PhoneAuthError) -> String? {
        let inline = try r.string(key)
        let variable = try r.string(key + "Env")
        if inline != nil, variable != nil {
            throw EngineConfig.bad("\(path).\(key)", "and \(key)Env cannot both be given")
        }
        if let inline {
            guard !inline.isEmpty else { throw EngineConfig.bad("\(path).\(key)", "must not be empty") }
            return inline
        }
        guard let variable else { return nil }
        guard Echo.isQuotable(variable) else {
            throw EngineConfig.bad("\(path).\(key)Env", "must be the name of an environment variable")
        }
        guard let value = EngineConfig.environment(variable) else {
            throw EngineConfig.bad(
                "\(path).\(key)Env", "names the environment variable \(variable), which is not set (or empty)")
        }
        return value
    }
}
