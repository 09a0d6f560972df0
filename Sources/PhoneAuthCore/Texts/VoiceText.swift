/// What a voice call says: the built-in texts or the host's own (`voice.templates`), with the
/// app's name (`sms.appName`). The code is spoken digit by digit and the sentence said twice.
/// Everything is checked when the engine opens, so calling never meets a bad template.
package struct VoiceText: Sendable {
    /// What a voice text may hold: no {minutes}, which a listener has no use for.
    package static let placeholders = ["code", "appName"]
    /// Between two digits: a comma is where every text-to-speech engine pauses, so "123456" is
    /// said as six digits rather than a number in the hundreds of thousands.
    static let digitSeparator = ", "

    let appName: String?
    let templates: [String: SMSText.Template]
    /// The language of a call whose language has no voice text.
    var fallbackLanguage = "en"

    /// Checks and prepares the texts. `key` names the configuration section in errors
    /// (`voice.templates.fr`).
    package init(
        appName: String?, hostTemplates: [String: String], defaultLanguage: String, key: String = "voice"
    ) throws(PhoneAuthError) {
        func bad(_ path: String, _ problem: String) -> PhoneAuthError { EngineConfig.bad("\(key).\(path)", problem) }
        if let appName, !SMSText.isAppName(appName) {
            throw EngineConfig.bad("sms.appName", SMSText.appNameRule)
        }
        var templates: [String: SMSText.Template] = [:]
        for (language, text) in VoiceTemplates.templates {
            let source = appName != nil ? VoiceTemplates.withAppName[language] ?? text : text
            templates[language] = try SMSText.parse(
                source, path: "templates.\(language)", allowed: Self.placeholders, bad: bad)
        }
        templates.merge(
            try SMSText.parseHost(hostTemplates, key: key, appName: appName, allowed: Self.placeholders, bad: bad)
        ) { $1 }
        guard templates[defaultLanguage] != nil else {
            throw EngineConfig.bad(
                "defaultLanguageCode", "has no voice text: it must be a built-in language or one of \(key).templates")
        }
        self.appName = appName
        self.templates = templates
    }

    /// The language of a call for `requested`: the exact tag, then its primary language
    /// ("fr-CA" → "fr"), then `fallback` — host templates included.
    package func resolve(_ requested: String?, fallback: String) -> String {
        SMSTemplates.resolve(requested, fallback: fallback, known: { templates[$0] != nil })
    }

    /// What the call says: the sentence with the code digit by digit, then, after a word that
    /// says it comes again, the same sentence once more.
    package func body(language: String, code: String) -> String {
        var sentence = ""
        for part in (templates[language] ?? templates["en"])?.parts ?? [.code] {
            switch part {
            case let .text(s): sentence += s
            case .code: sentence += Self.spoken(code)
            case .appName: sentence += appName ?? ""
            case .minutes: break
            }
        }
        // A host's language borrows the lead-in of its built-in relative ("fr-CA" → "fr"), else none.
        let relative = SMSTemplates.resolve(language, fallback: "", known: { VoiceTemplates.again[$0] != nil })
        let again = VoiceTemplates.again[relative] ?? ""
        return sentence + " " + again + sentence
    }

    /// "123456" as "1, 2, 3, 4, 5, 6".
    package static func spoken(_ code: String) -> String {
        code.map(String.init).joined(separator: digitSeparator)
    }

    /// The text-to-speech locale for a message's language, as Twilio's <Say language> and
    /// Vonage's talk `language` both name it: a language with its region ("fr" → "fr-FR"),
    /// Mandarin as cmn ("zh-CN" → "cmn-CN", Traditional → "cmn-TW"). A host's tag with a region
    /// keeps it ("fr-CA"); one without a known region is passed as given.
    package static func voiceLocale(_ language: String) -> String {
        let tag = SMSTemplates.canonical(language)
        if let locale = locales[tag] { return locale }
        var subtags = tag.split(separator: "-").map(String.init)
        guard let primary = subtags.first else { return "en-US" }
        if primary == "zh" {
            return SMSTemplates.resolve(tag, fallback: "zh-CN", known: { _ in false }) == "zh-TW" ? "cmn-TW" : "cmn-CN"
        }
        // A script subtag ("sr-Latn-RS") is no part of a speech locale.
        subtags.removeAll { $0.count == 4 }
        if subtags.count >= 2 { return subtags[0] + "-" + subtags[1] }
        return locales[primary] ?? tag
    }

    /// Each built-in language, and a few more a host may add, with the region of its usual voice.
    static let locales: [String: String] = [
        "en": "en-US", "fr": "fr-FR", "de": "de-DE", "es": "es-ES", "pt": "pt-BR", "it": "it-IT", "nl": "nl-NL",
        "ru": "ru-RU", "zh-TW": "cmn-TW", "zh-CN": "cmn-CN", "id": "id-ID", "ja": "ja-JP", "ko": "ko-KR",
        "da": "da-DK", "sv": "sv-SE", "nb": "nb-NO", "no": "nb-NO", "fi": "fi-FI", "pl": "pl-PL", "tr": "tr-TR",
        "cs": "cs-CZ", "ro": "ro-RO", "hu": "hu-HU", "el": "el-GR", "uk": "uk-UA", "hi": "hi-IN", "vi": "vi-VN",
        "th": "th-TH", "ca": "ca-ES",
    ]
}

extension VoiceText {
    /// The engine's voice texts (`voice.templates`, `sms.appName`). A default language with an
    /// SMS text but no voice text (a host's own) is said in English.
    init(_ config: EngineConfig) throws(PhoneAuthError) {
        let language = config.defaultLanguageCode
        let voiced =
            VoiceTemplates.templates[language] != nil
            || config.voiceTemplates.keys.contains { SMSTemplates.canonical($0) == language }
        try self.init(
            appName: config.smsAppName, hostTemplates: config.voiceTemplates,
            defaultLanguage: voiced ? language : "en")
        fallbackLanguage = voiced ? language : "en"
    }
}
