/// The SMS text for each language. Each template holds the code exactly once, at `{code}`.
package enum SMSTemplates {
    static let templates: [String: String] = [
        "en": "{code} is your verification code.",
        "fr": "{code} est votre code de vérification.",
        "de": "{code} ist Ihr Bestätigungscode.",
        "es": "{code} es tu código de verificación.",
        "pt": "{code} é o seu código de verificação.",
        "it": "{code} è il tuo codice di verifica.",
        "nl": "{code} is je verificatiecode.",
        "ru": "{code} — ваш код подтверждения.",
        "zh-TW": "您的驗證碼是 {code}。",
        "zh-CN": "您的验证码是 {code}。",
        "id": "{code} adalah kode verifikasi Anda.",
        "ja": "認証コードは {code} です。",
        "ko": "인증 코드는 {code}입니다.",
    ]

    /// The same texts naming the app, used when `sms.appName` is set.
    static let withAppName: [String: String] = [
        "en": "{code} is your verification code for {appName}.",
        "fr": "{code} est votre code de vérification pour {appName}.",
        "de": "{code} ist Ihr Bestätigungscode für {appName}.",
        "es": "{code} es tu código de verificación para {appName}.",
        "pt": "{code} é o seu código de verificação para {appName}.",
        "it": "{code} è il tuo codice di verifica per {appName}.",
        "nl": "{code} is je verificatiecode voor {appName}.",
        "ru": "{code} — ваш код подтверждения для {appName}.",
        "zh-TW": "您的 {appName} 驗證碼是 {code}。",
        "zh-CN": "您的 {appName} 验证码是 {code}。",
        "id": "{code} adalah kode verifikasi {appName} Anda.",
        "ja": "{appName} の認証コードは {code} です。",
        "ko": "{appName} 인증 코드는 {code}입니다.",
    ]

    package static var languages: [String] { templates.keys.sorted() }

    /// The language used for `requested` among those `known` has a text for: the tag, then the tag
    /// with its last subtags taken off one by one ("zh-Hant-HK" → "zh-Hant" → "zh"), Chinese by
    /// script and region when no "zh" text is known, then `fallback`.
    package static func resolve(_ requested: String?, fallback: String, known: (String) -> Bool) -> String {
        guard let requested, !requested.isEmpty else { return fallback }
        var tag = canonical(requested)
        let subtags = tag.split(separator: "-").map(String.init)
        while !tag.isEmpty {
            if known(tag) { return tag }
            tag = String(tag[..<(tag.lastIndex(of: "-") ?? tag.startIndex)])
        }
        if subtags.first == "zh" {
            // Traditional script for Taiwan, Hong Kong, Macau and explicit Hant; Simplified otherwise.
            return Set(subtags).isDisjoint(with: ["Hant", "TW", "HK", "MO"]) ? "zh-CN" : "zh-TW"
        }
        return fallback
    }

    /// "fr_ca" and "FR-ca" become "fr-CA"; script subtags keep title case ("zh-hant" → "zh-Hant").
    static func canonical(_ tag: String) -> String {
        let parts = tag.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        guard let first = parts.first else { return "" }
        var result = first.lowercased()
        for part in parts.dropFirst() {
            result +=
                "-"
                + (part.count == 4 ? part.prefix(1).uppercased() + part.dropFirst().lowercased() : part.uppercased())
        }
        return result
    }
}
