/// Reading a `type: "twilio"` entry of sms.providers.
extension ProviderSettings {
    /// Twilio: an account SID and its auth token, or an API key; a sender for each channel.
    static func readTwilio(_ r: ObjectReader, _ c: Common) throws(PhoneAuthError) -> TwilioProvider {
        let path = c.path
        try r.rejectUnknown(
            commonKeys.union([
                "accountSid", "authToken", "authTokenEnv", "apiKeySid", "apiKeySecret", "apiKeySecretEnv", "from",
                "messagingServiceSid", "whatsappFrom", "whatsappContentSid", "voiceFrom",
            ]))
        let accountSid = try required(r, "accountSid", path: path, colonFree: true)
        let token = try ConfiguredSecret.read(r, "authToken", path: path)
        let credentials: String
        if let keySid = try plain(r, "apiKeySid", path: path, colonFree: true) {
            guard let secret = try ConfiguredSecret.read(r, "apiKeySecret", path: path) else {
                throw bad("\(path).apiKeySecret", "(or apiKeySecretEnv) is required with apiKeySid")
            }
            // The auth token may come too: it signs no request then, but checks Twilio's callbacks.
            credentials = "\(keySid):\(secret)"
        } else {
            guard try r.string("apiKeySecret") == nil, try r.string("apiKeySecretEnv") == nil else {
                throw bad("\(path).apiKeySid", "is required with apiKeySecret")
            }
            guard let token else {
                throw bad("\(path).authToken", "(or authTokenEnv, or apiKeySid and apiKeySecret) is required")
            }
            credentials = "\(accountSid):\(token)"
        }
        if c.receiptUrl != nil, token == nil {
            throw bad(
                "\(path).authToken",
                "(or authTokenEnv) is required with receiptUrl: Twilio signs its callbacks with the auth token")
        }
        let from = try plain(r, "from", path: path)
        let service = try plain(r, "messagingServiceSid", path: path)
        if c.channels.contains(.sms) {
            guard (from == nil) != (service == nil) else {
                throw bad("\(path).from", "or messagingServiceSid (exactly one of them) is required")
            }
        } else {
            if from != nil { throw bad("\(path).from", "is the SMS sender, but channels does not hold sms") }
            if service != nil, !c.channels.contains(.whatsapp) {
                throw bad("\(path).messagingServiceSid", "is not used: channels holds neither sms nor whatsapp")
            }
        }
        var provider = TwilioProvider(
            endpoint: c.endpoint, accountSid: accountSid, credentials: credentials, from: from,
            messagingServiceSid: service)
        provider.channels = c.channels
        provider.authToken = token
        provider.statusCallbackUrl = c.receiptUrl
        provider.whatsappContentSid = try forChannel(r, "whatsappContentSid", .whatsapp, c)
        if let whatsappFrom = try forChannel(r, "whatsappFrom", .whatsapp, c, required: false) {
            // Twilio's own spelling, whatsapp:+14155238886, is taken as well.
            let number = whatsappFrom.hasPrefix("whatsapp:") ? String(whatsappFrom.dropFirst(9)) : whatsappFrom
            provider.whatsappFrom = try e164(number, key: "\(path).whatsappFrom")
        } else if c.channels.contains(.whatsapp), service == nil {
            throw bad("\(path).whatsappFrom", "(or messagingServiceSid) is required when channels holds whatsapp")
        }
        if let voiceFrom = try forChannel(r, "voiceFrom", .voice, c) {
            provider.voiceFrom = try e164(voiceFrom, key: "\(path).voiceFrom")
        }
        return provider
    }

    /// "+" and 6 to 15 digits.
    private static func e164(_ number: String, key: String) throws(PhoneAuthError) -> String {
        let digits = number.utf8.dropFirst()
        guard number.hasPrefix("+"), (6...15).contains(digits.count), digits.allSatisfy(ASCII.isDigit) else {
            throw bad(key, "must be a phone number in E.164 form, such as +14155550100")
        }
        return number
    }
}
