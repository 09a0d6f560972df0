/// Reading a `type: "whatsapp"` entry of sms.providers (Meta's Cloud API), and the WhatsApp
/// templates it and a Vonage entry name.
extension ProviderSettings {
    /// Meta's WhatsApp Cloud API: a business phone number's ID, an access token, templates.
    static func readWhatsApp(_ r: ObjectReader, _ c: Common) throws(PhoneAuthError) -> WhatsAppProvider {
        let path = c.path
        try r.rejectUnknown(
            commonKeys.union([
                "apiVersion", "phoneNumberId", "accessToken", "accessTokenEnv", "templates", "appSecret",
                "appSecretEnv", "verifyToken", "verifyTokenEnv",
            ]))
        let phoneNumberId = try required(r, "phoneNumberId", path: path)
        guard phoneNumberId.utf8.allSatisfy(ASCII.isDigit) else {
            throw bad("\(path).phoneNumberId", "must be the business phone number's ID: digits only")
        }
        guard let accessToken = try ConfiguredSecret.read(r, "accessToken", path: path) else {
            throw bad("\(path).accessToken", "(or accessTokenEnv) is required")
        }
        // It goes into a header line: nothing there may end the line.
        guard accessToken.unicodeScalars.allSatisfy({ $0.value > 32 && $0.value < 127 }) else {
            throw bad("\(path).accessToken", "must be printable ASCII without spaces")
        }
        guard let templates = try whatsAppTemplates(r, "templates", path: path) else {
            throw bad("\(path).templates", "is required: the approved authentication template for each language")
        }
        var provider = WhatsAppProvider(
            endpoint: c.endpoint, phoneNumberId: phoneNumberId, accessToken: accessToken, templates: templates)
        if let version = try r.string("apiVersion") {
            let parts = version.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            guard version.hasPrefix("v"), parts.count == 2,
                parts.allSatisfy({ (1...3).contains($0.utf8.count) && $0.utf8.allSatisfy(ASCII.isDigit) })
            else {
                throw bad(
                    "\(path).apiVersion", "must be a Graph API version such as \(WhatsAppProvider.defaultApiVersion)")
            }
            provider.apiVersion = version
        }
        provider.appSecret = try ConfiguredSecret.read(r, "appSecret", path: path)
        provider.verifyToken = try ConfiguredSecret.read(r, "verifyToken", path: path)
        provider.receiptUrl = c.receiptUrl
        provider.channels = c.channels
        return provider
    }

    /// `key`: a map from language tags to approved WhatsApp authentication templates, each
    /// {"name": …, "language": …} or just the name (its language then the tag, "pt-BR" → "pt_BR").
    static func whatsAppTemplates(
        _ r: ObjectReader, _ key: String, path: String
    ) throws(PhoneAuthError) -> [String: WhatsAppProvider.Template]? {
        guard let value = r.value(key) else { return nil }
        let shape =
            "must be an object from language tags to approved authentication templates, "
            + #"e.g. {"en": {"name": "verification_code", "language": "en_US"}}"#
        guard case let .object(entries) = value, (1...100).contains(entries.count) else {
            throw bad("\(path).\(key)", shape)
        }
        var templates: [String: WhatsAppProvider.Template] = [:]
        var tagOf: [String: String] = [:]
        for (tag, entry) in entries {
            let at = "\(path).\(key).\(tag)"
            let language = SMSTemplates.canonical(tag)
            guard SMSText.isLanguageTag(language) else {
                throw bad(at, "is not a language tag such as en, fr or pt-BR")
            }
            if let other = tagOf.updateValue(tag, forKey: language) {
                throw bad(at, "is the same language as \(path).\(key).\(other) (\(language))")
            }
            let name: String
            var code: String?
            switch entry {
            case let .string(s): name = s
            case .object:
                let t = try ObjectReader(entry, code: .invalidConfiguration, path: at)
                try t.rejectUnknown(["name", "language"])
                guard let n = try t.string("name") else { throw bad("\(at).name", "is required") }
                name = n
                code = try t.string("language")
            default: throw bad(at, shape)
            }
            // Meta's template names: lowercase letters, digits and underscores.
            guard (1...512).contains(name.utf8.count),
                name.utf8.allSatisfy({ (97...122).contains($0) || ASCII.isDigit($0) || $0 == 95 })
            else {
                throw bad(
                    entry.stringValue == nil ? "\(at).name" : at,
                    "must be a template's name: lowercase letters, digits and _")
            }
            // "zh-Hant-TW" → "zh_TW": WhatsApp's codes have no script.
            let fallback = language.split(separator: "-").filter { $0.utf8.count != 4 }.map(String.init).joined(
                separator: "_")
            let whatsappLanguage = code ?? fallback
            guard (2...15).contains(whatsappLanguage.utf8.count),
                whatsappLanguage.utf8.allSatisfy({ ASCII.isLetter($0) || $0 == 95 })
            else {
                throw bad("\(at).language", "must be a WhatsApp language code such as en, en_US or pt_BR")
            }
            templates[language] = WhatsAppProvider.Template(name: name, language: whatsappLanguage)
        }
        return templates
    }
}
