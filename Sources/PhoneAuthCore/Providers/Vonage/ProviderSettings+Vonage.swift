import Glibc

/// Reading a `type: "vonage"` entry of sms.providers.
extension ProviderSettings {
    /// Vonage: an API key and secret (SMS, Messages), an application and its key (Voice).
    static func readVonage(_ r: ObjectReader, _ c: Common) throws(PhoneAuthError) -> VonageProvider {
        let path = c.path
        try r.rejectUnknown(
            commonKeys.union([
                "apiKey", "apiSecret", "apiSecretEnv", "from", "apiBaseUrl", "whatsappFrom", "whatsappTemplates",
                "voiceFrom", "applicationId", "privateKey", "privateKeyEnv", "privateKeyFile", "signatureSecret",
                "signatureSecretEnv",
            ]))
        // The SMS and Messages APIs sign in with the key and secret; the Voice API with a JWT.
        let needsKey = !c.channels.isDisjoint(with: [.sms, .whatsapp])
        let apiKey = try plain(r, "apiKey", path: path, colonFree: true)
        let apiSecret = try ConfiguredSecret.read(r, "apiSecret", path: path)
        if needsKey {
            guard apiKey != nil else { throw bad("\(path).apiKey", "is required") }
            guard apiSecret != nil else { throw bad("\(path).apiSecret", "(or apiSecretEnv) is required") }
        }
        let from = try forChannel(r, "from", .sms, c)
        var provider = VonageProvider(
            endpoint: c.endpoint, apiKey: apiKey ?? "", apiSecret: apiSecret ?? "", from: from)
        provider.channels = c.channels
        provider.receiptUrl = c.receiptUrl
        provider.signatureSecret = try ConfiguredSecret.read(r, "signatureSecret", path: path)
        if c.receiptUrl != nil, provider.signatureSecret == nil {
            throw bad(
                "\(path).signatureSecret",
                "(or signatureSecretEnv) is required with receiptUrl: Vonage signs its callbacks with it")
        }
        if let url = try r.string("apiBaseUrl") {
            guard !c.channels.isDisjoint(with: [.whatsapp, .voice]) else {
                throw bad("\(path).apiBaseUrl", "is only used when channels holds whatsapp or voice")
            }
            guard !url.contains("?") else {
                throw bad("\(path).apiBaseUrl", "must not have a query (?...): the API's path is appended to it")
            }
            provider.apiBaseUrl = try HTTPEndpoint.checkURL(url, key: "\(path).apiBaseUrl")
        }
        if let number = try forChannel(r, "whatsappFrom", .whatsapp, c) {
            provider.whatsappFrom = try digits(number, key: "\(path).whatsappFrom")
        }
        if let templates = try whatsAppTemplates(r, "whatsappTemplates", path: path) {
            guard c.channels.contains(.whatsapp) else {
                throw bad("\(path).whatsappTemplates", "is only used when channels holds whatsapp")
            }
            provider.whatsappTemplates = templates
        } else if c.channels.contains(.whatsapp) {
            throw bad("\(path).whatsappTemplates", "is required when channels holds whatsapp")
        }
        if let number = try forChannel(r, "voiceFrom", .voice, c) {
            provider.voiceFrom = try digits(number, key: "\(path).voiceFrom")
        }
        let applicationId = try forChannel(r, "applicationId", .voice, c)
        let key = try privateKey(r, path: path)
        if let key {
            guard c.channels.contains(.voice) else {
                throw bad("\(path).\(key.key)", "is only used when channels holds voice")
            }
        }
        if let applicationId {
            guard let key else {
                throw bad(
                    "\(path).privateKey", "(or privateKeyEnv or privateKeyFile) is required when channels holds voice")
            }
            guard let jwt = VonageJWT(applicationId: applicationId, pem: key.pem) else {
                throw bad(
                    "\(path).\(key.key)",
                    "must be the Vonage application's RSA private key (2048 bits or more) in PEM: "
                        + "-----BEGIN PRIVATE KEY-----")
            }
            provider.jwt = jwt
        }
        return provider
    }

    /// 6 to 15 digits, a leading + dropped: how Vonage writes numbers.
    private static func digits(_ number: String, key: String) throws(PhoneAuthError) -> String {
        let digits = number.hasPrefix("+") ? String(number.dropFirst()) : number
        guard (6...15).contains(digits.utf8.count), digits.utf8.allSatisfy(ASCII.isDigit) else {
            throw bad(key, "must be a phone number of 6 to 15 digits, such as 14155550100")
        }
        return digits
    }

    /// The Vonage application's private key: inline (`privateKey`, newlines as \n allowed), from
    /// the environment (`privateKeyEnv`) or from a file (`privateKeyFile`), and the key it came by.
    private static func privateKey(
        _ r: ObjectReader, path: String
    ) throws(PhoneAuthError) -> (pem: String, key: String)? {
        let file = try r.string("privateKeyFile")
        if let file {
            guard try r.string("privateKey") == nil, try r.string("privateKeyEnv") == nil else {
                throw bad("\(path).privateKeyFile", "cannot be given with privateKey or privateKeyEnv")
            }
            guard let text = readSmallFile(file) else {
                throw bad("\(path).privateKeyFile", "must name a PEM file this process can read")
            }
            return (text, "privateKeyFile")
        }
        guard let text = try ConfiguredSecret.read(r, "privateKey", path: path) else { return nil }
        // A PEM squeezed into one line of JSON or an environment variable.
        let pem = text.contains("\n") ? text : text.replacing("\\n", with: "\n")
        return (pem, try r.string("privateKeyEnv") != nil ? "privateKeyEnv" : "privateKey")
    }

    /// A file's text, if it can be read and is under 64 KiB (a key, not a dump).
    private static func readSmallFile(_ path: String) -> String? {
        guard !path.isEmpty, let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: 65_536)
        let n = fread(&bytes, 1, bytes.count, file)
        guard n > 0, n < bytes.count else { return nil }
        return String(decoding: bytes[0..<n], as: UTF8.self)
    }
}
