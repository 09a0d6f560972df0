/// The SMS texts an engine sends: the built-in templates or the host's own (`sms.templates`), the
/// app's name (`sms.appName`), and the lines phones read to fill the code in by themselves
/// (`sms.originBoundDomain` for the WebOTP API and iOS's security-code autofill,
/// `sms.androidAppHash` for Android's SMS Retriever API).
/// Everything is checked when the engine opens, so sending never meets a bad template.
package struct SMSText: Sendable {
    /// A template cut at its placeholders once.
    struct Template: Sendable {
        enum Part: Sendable { case text(String), code, appName, minutes }
        let parts: [Part]
    }

    package static let placeholders = ["code", "appName", "minutes"]
    /// The longest `sms.appName`, in UTF-16 code units (what UCS-2 counts; an emoji is two): every
    /// built-in text, with such a name and the longest code, fits one SMS.
    package static let maxAppNameLength = 20

    let appName: String?

    /// What an app name (`sms.appName`, a tenant's `smsAppName`) must be.
    package static let appNameRule =
        "must be 1 to \(maxAppNameLength) characters (an emoji counts as two), without control characters"

    package static func isAppName(_ name: String) -> Bool {
        !name.isEmpty && name.utf16.count <= maxAppNameLength
            && !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    }
    let templates: [String: Template]
    let originBoundDomain: String?
    let androidAppHash: String?

    /// Checks and prepares the texts. `key` names the configuration section in errors.
    package init(
        appName: String?, hostTemplates: [String: String], originBoundDomain: String?, androidAppHash: String?,
        maxSegments: Int, codeLength: Int, codeTtlSeconds: Int64, defaultLanguage: String = "en",
        key: String = "sms"
    ) throws(PhoneAuthError) {
        func bad(_ path: String, _ problem: String) -> PhoneAuthError { EngineConfig.bad("\(key).\(path)", problem) }
        if let appName, !Self.isAppName(appName) { throw bad("appName", Self.appNameRule) }
        if let domain = originBoundDomain, !Self.isDomain(domain) {
            throw bad("originBoundDomain", "must be a host name such as example.com (no scheme, port or path)")
        }
        if let hash = androidAppHash, !Self.isAppHash(hash) {
            throw bad("androidAppHash", "must be the app's 11-character hash (letters, digits, + and /)")
        }
        var templates: [String: Template] = [:]
        for (language, text) in SMSTemplates.templates {
            // The built-in text that names the app when there is a name to put in.
            let source = appName != nil ? SMSTemplates.withAppName[language] ?? text : text
            templates[language] = try Self.parse(source, path: "templates.\(language)", bad: bad)
        }
        templates.merge(
            try Self.parseHost(hostTemplates, key: key, appName: appName, allowed: Self.placeholders, bad: bad)
        ) { $1 }
        self.appName = appName
        self.templates = templates
        self.originBoundDomain = originBoundDomain
        self.androidAppHash = androidAppHash
        guard templates[defaultLanguage] != nil else {
            throw EngineConfig.bad(
                "defaultLanguageCode", "has no SMS text: it must be a built-in language or one of sms.templates")
        }
        // The longest rendering of each: the longest code, in digits that cost what any digit does.
        // Android's SMS Retriever reads only a message of at most 140 bytes: one segment.
        let longestCode = String(repeating: "9", count: codeLength)
        let limit = androidAppHash == nil ? maxSegments : 1
        for language in templates.keys.sorted() {
            let cost = SMSCost(of: body(language: language, code: longestCode, minutes: Self.minutes(codeTtlSeconds)))
            guard cost.segments > limit else { continue }
            let text =
                hostTemplates.keys.contains(where: { SMSTemplates.canonical($0) == language })
                ? "takes" : "(the built-in text, with sms.appName) takes"
            let rule =
                androidAppHash == nil
                ? "sms.maxSegments is \(maxSegments): raise it or give a shorter sms.templates.\(language)"
                : "with sms.androidAppHash a message must be one SMS (140 bytes) for the SMS Retriever API: "
                    + "give a shorter sms.templates.\(language)"
            throw bad(
                "templates.\(language)",
                "\(text) \(cost.segments) SMS (\(cost.units) \(cost.encoding.rawValue) units) with a "
                    + "\(codeLength)-digit code and the autofill lines; \(rule)")
        }
    }

    /// The language of a message for `requested`: the exact tag, then its primary language
    /// ("fr-CA" → "fr"), then `fallback` — host templates included.
    package func resolve(_ requested: String?, fallback: String) -> String {
        SMSTemplates.resolve(requested, fallback: fallback, known: { templates[$0] != nil })
    }

    /// The text of a message: the template filled in, then the autofill lines.
    package func body(language: String, code: String, minutes: Int) -> String {
        var text = ""
        for part in (templates[language] ?? templates["en"])?.parts ?? [.code] {
            switch part {
            case let .text(s): text += s
            case .code: text += code
            case .appName: text += appName ?? ""
            case .minutes: text += String(minutes)
            }
        }
        // SMS Retriever: the app's hash ends the message. WebOTP / iOS: the last line is
        // "@domain #code" (a line of its own, so a blank line first reads cleanly).
        if let androidAppHash { text += "\n\n" + androidAppHash }
        if let originBoundDomain {
            text += (androidAppHash == nil ? "\n\n" : "\n") + "@" + originBoundDomain + " #" + code
        }
        return text
    }

    static func minutes(_ seconds: Int64) -> Int { Int((seconds + 59) / 60) }

    /// The host's templates (`key`.templates), by canonical language: each a language tag given
    /// once, its text as `parse` takes it, {appName} only when there is a name.
    static func parseHost(
        _ hostTemplates: [String: String], key: String, appName: String?, allowed: [String],
        bad: (String, String) -> PhoneAuthError
    ) throws(PhoneAuthError) -> [String: Template] {
        var templates: [String: Template] = [:]
        var tagOf: [String: String] = [:]
        for (tag, text) in hostTemplates.sorted(by: { $0.key < $1.key }) {
            let language = SMSTemplates.canonical(tag)
            guard isLanguageTag(language) else {
                throw bad("templates.\(tag)", "is not a language tag such as fr, fr-CA or zh-Hant-TW")
            }
            if let other = tagOf.updateValue(tag, forKey: language) {
                throw bad("templates.\(tag)", "is the same language as \(key).templates.\(other) (\(language))")
            }
            let template = try parse(text, path: "templates.\(tag)", allowed: allowed, bad: bad)
            if appName == nil,
                template.parts.contains(where: { if case .appName = $0 { return true } else { return false } })
            {
                throw bad("templates.\(tag)", "uses {appName} but sms.appName is not set")
            }
            templates[language] = template
        }
        return templates
    }

    /// Exactly one {code}, and only known placeholders; a `{` always opens one. Read by Unicode
    /// scalar, so a combining mark after a brace does not hide it.
    /// `allowed`: the placeholders this kind of text takes (a voice text has no {minutes}).
    static func parse(
        _ text: String, path: String, allowed: [String] = placeholders, bad: (String, String) -> PhoneAuthError
    ) throws(PhoneAuthError) -> Template {
        var parts: [Template.Part] = [], literal = String.UnicodeScalarView(), codes = 0
        var rest = Substring(text).unicodeScalars
        while let open = rest.firstIndex(of: "{") {
            literal += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { throw bad(path, "has a { without a }") }
            let name = String(rest[rest.index(after: open)..<close])
            guard allowed.contains(name) else {
                throw bad(
                    path,
                    "has an unknown placeholder {\(name)}; the placeholders are "
                        + "\(allowed.map { "{\($0)}" }.joined(separator: ", "))"
                )
            }
            let part: Template.Part
            switch name {
            case "code": part = .code; codes += 1
            case "appName": part = .appName
            default: part = .minutes
            }
            if !literal.isEmpty { parts.append(.text(String(literal))); literal = String.UnicodeScalarView() }
            parts.append(part)
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if !literal.isEmpty { parts.append(.text(String(literal))) }
        guard codes == 1 else { throw bad(path, "must hold {code} exactly once (it holds it \(codes) times)") }
        return Template(parts: parts)
    }

    /// A BCP 47 tag as far as a template's language needs: a 2–3 letter language, then subtags of
    /// 2–8 letters or digits (script, region, variant), already in canonical case.
    static func isLanguageTag(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = subtags.first, (2...3).contains(language.utf8.count),
            language.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isLowercase })
        else { return false }
        return subtags.dropFirst().allSatisfy { subtag in
            (2...8).contains(subtag.utf8.count)
                && subtag.unicodeScalars.allSatisfy {
                    $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0)
                }
        }
    }

    /// A host name: labels of letters, digits and hyphens (not at either end), at least two labels,
    /// the last not all digits (an IP address is not an origin's host for WebOTP).
    static func isDomain(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, text.utf8.count <= 253, let last = labels.last,
            !last.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) })
        else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                && label.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-")
                }
        }
    }

    /// Android's app signature hash: 11 characters of base64 (RFC 4648 alphabet).
    static func isAppHash(_ text: String) -> Bool {
        text.utf8.count == 11
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "+" || $0 == "/")
            }
    }
}

extension SMSText {
    /// The texts the configuration asks for (`sms` and `defaultLanguageCode`).
    init(_ config: EngineConfig) throws {
        try self.init(
            appName: config.smsAppName, hostTemplates: config.smsTemplates,
            originBoundDomain: config.smsOriginBoundDomain, androidAppHash: config.smsAndroidAppHash,
            maxSegments: config.smsMaxSegments, codeLength: config.codeLength,
            codeTtlSeconds: config.codeTtlSeconds, defaultLanguage: config.defaultLanguageCode)
    }
}
