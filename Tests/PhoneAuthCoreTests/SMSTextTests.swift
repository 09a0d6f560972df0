import XCTest
@testable import PhoneAuthCore

final class SMSTextTests: XCTestCase {
    func make(
        appName: String? = nil, templates: [String: String] = [:], domain: String? = nil, hash: String? = nil,
        maxSegments: Int = 1, codeLength: Int = 6, ttl: Int64 = 300, defaultLanguage: String = "en"
    ) throws -> SMSText {
        try SMSText(
            appName: appName, hostTemplates: templates, originBoundDomain: domain, androidAppHash: hash,
            maxSegments: maxSegments, codeLength: codeLength, codeTtlSeconds: ttl, defaultLanguage: defaultLanguage)
    }

    func refusal(_ build: () throws -> SMSText) -> String {
        do {
            _ = try build()
            return "accepted"
        } catch let error as PhoneAuthError {
            XCTAssertEqual(error.code, .invalidConfiguration)
            return error.message
        } catch {
            return "\(error)"
        }
    }

    func testBuiltInTextsNameTheAppWhenItIsSet() throws {
        XCTAssertEqual(try make().body(language: "en", code: "123456", minutes: 5), "123456 is your verification code.")
        let named = try make(appName: "Acme")
        XCTAssertEqual(
            named.body(language: "en", code: "123456", minutes: 5), "123456 is your verification code for Acme.")
        XCTAssertEqual(
            named.body(language: "ja", code: "123456", minutes: 5), "Acme の認証コードは 123456 です。")
    }

    func testHostTemplatesOverrideAndAddLanguagesWithTheFallbackChain() throws {
        let text = try make(
            appName: "Acme",
            templates: ["fr": "Code {appName} : {code} (valable {minutes} min)", "sw": "Nambari yako ni {code}"])
        XCTAssertEqual(
            text.body(language: text.resolve("fr-CA", fallback: "en"), code: "123456", minutes: 5),
            "Code Acme : 123456 (valable 5 min)")
        XCTAssertEqual(text.resolve("sw-KE", fallback: "en"), "sw")
        XCTAssertEqual(text.body(language: "sw", code: "42424242", minutes: 5), "Nambari yako ni 42424242")
        XCTAssertEqual(text.resolve("xx", fallback: "de"), "de")
        XCTAssertEqual(text.resolve("fr_ca", fallback: "en"), "fr")
    }

    func testEachLanguageFallsBackFromItsRegionalTagsBuiltInOrHost() throws {
        let text = try make(templates: ["sw": "{code}", "pt-BR": "Seu código: {code}"])
        for language in SMSTemplates.languages + ["sw"] where !language.hasPrefix("zh") {
            XCTAssertEqual(text.resolve(language, fallback: "en"), language)
            XCTAssertEqual(text.resolve(language.uppercased() + "_zz", fallback: "en"), language)
            XCTAssertEqual(text.resolve(language + "-Latn-ZZ", fallback: "de"), language)
        }
        // A regional host template is used for its own tag; other regions take the language.
        XCTAssertEqual(text.resolve("pt-br", fallback: "en"), "pt-BR")
        XCTAssertEqual(text.resolve("pt-PT", fallback: "en"), "pt")
        XCTAssertEqual(text.resolve("zh-HK", fallback: "en"), "zh-TW")
        XCTAssertEqual(text.resolve("zh-Hans-SG", fallback: "en"), "zh-CN")
        // Subtags come off one at a time, and a host's "zh" text serves every Chinese tag.
        XCTAssertEqual(try make(templates: ["zh-Hant": "{code}"]).resolve("zh-Hant-HK", fallback: "en"), "zh-Hant")
        XCTAssertEqual(try make(templates: ["zh": "{code}"]).resolve("zh-SG", fallback: "en"), "zh")
        XCTAssertEqual(try make(templates: ["pt-BR": "{code}"]).resolve("pt-BR-x-test", fallback: "en"), "pt-BR")
        XCTAssertEqual(text.resolve(nil, fallback: "sw"), "sw")
        XCTAssertEqual(text.resolve("", fallback: "sw"), "sw")
    }

    func testTemplateRulesAreCheckedAtOpen() {
        XCTAssertTrue(refusal { try self.make(templates: ["en": "no code here"]) }.contains("sms.templates.en"))
        XCTAssertTrue(refusal { try self.make(templates: ["en": "{code} and {code}"]) }.contains("exactly once"))
        XCTAssertTrue(
            refusal { try self.make(templates: ["en": "{code} {name}"]) }.contains("unknown placeholder {name}"))
        XCTAssertTrue(refusal { try self.make(templates: ["en": "{code} {oops"]) }.contains("without a }"))
        XCTAssertTrue(
            refusal { try self.make(templates: ["en": "{code} for {appName}"]) }.contains("sms.appName is not set"))
        XCTAssertTrue(refusal { try self.make(appName: String(repeating: "x", count: 21)) }.contains("sms.appName"))
        // The name's length is counted as UCS-2 counts it: an emoji is two units.
        XCTAssertTrue(refusal { try self.make(appName: String(repeating: "🙂", count: 11)) }.contains("sms.appName"))
        XCTAssertTrue(refusal { try self.make(templates: [" fr": "{code}"]) }.contains("not a language tag"))
        XCTAssertTrue(refusal { try self.make(templates: ["f": "{code}"]) }.contains("sms.templates.f"))
        XCTAssertTrue(refusal { try self.make(defaultLanguage: "sw") }.contains("defaultLanguageCode"))
        XCTAssertEqual(refusal { try self.make(templates: ["sw": "{code}"], defaultLanguage: "sw") }, "accepted")
        // A combining mark after a brace does not hide it.
        XCTAssertEqual(
            try make(templates: ["en": "{code}\u{301} ok"]).body(language: "en", code: "123456", minutes: 5),
            "123456\u{301} ok")
        XCTAssertTrue(
            refusal { try self.make(templates: ["fr-CA": "{code}", "fr_ca": "{code}"]) }.contains(
                "same language as sms.templates.fr-CA"))
        let long = "{code} " + String(repeating: "x", count: 160)
        XCTAssertTrue(refusal { try self.make(templates: ["en": long]) }.contains("takes 2 SMS"))
        XCTAssertEqual(refusal { try self.make(templates: ["en": long], maxSegments: 2) }, "accepted")
        // A translation that needs UCS-2 is counted in UCS-2's 70 units.
        XCTAssertTrue(
            refusal { try self.make(templates: ["ru": "{code} " + String(repeating: "ж", count: 64)]) }.contains(
                "sms.templates.ru"))
        XCTAssertEqual(
            refusal { try self.make(templates: ["ru": "{code} " + String(repeating: "ж", count: 63)]) }, "accepted")
    }

    func testEveryBuiltInTextFitsOneSMSWithTheLongestAppNameAndCode() throws {
        for name in [
            String(repeating: "W", count: SMSText.maxAppNameLength),
            String(repeating: "Ж", count: SMSText.maxAppNameLength),
            String(repeating: "🙂", count: SMSText.maxAppNameLength / 2), "👨‍👩‍👧👨‍👩‍👧",
        ] {
            let text = try make(appName: name, codeLength: 10)
            for language in SMSTemplates.languages {
                let cost = SMSCost(of: text.body(language: language, code: "1234567890", minutes: 5))
                XCTAssertEqual(cost.segments, 1, "\(language) with \(name)")
            }
        }
    }

    func testMinutesAreTheCodesLifetimeRoundedUp() throws {
        XCTAssertEqual([1, 59, 60, 61, 90, 3600].map { SMSText.minutes($0) }, [1, 1, 1, 2, 2, 60])
        let text = try make(templates: ["en": "{code} ({minutes} min)"], ttl: 90)
        XCTAssertEqual(text.body(language: "en", code: "123456", minutes: SMSText.minutes(90)), "123456 (2 min)")
    }

    func testWebOTPAndSMSRetrieverLines() throws {
        let web = try make(domain: "example.com")
        let body = web.body(language: "en", code: "123456", minutes: 5)
        XCTAssertEqual(body, "123456 is your verification code.\n\n@example.com #123456")
        // The format's rules: the last line is "@" domain, a space, "#" and the code sent.
        let last = body.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(last.hasPrefix("@example.com #"))
        XCTAssertEqual(last.split(separator: "#").last.map(String.init), "123456")
        let android = try make(hash: "FA+9qCX9VSu")
        XCTAssertEqual(
            android.body(language: "en", code: "123456", minutes: 5), "123456 is your verification code.\n\nFA+9qCX9VSu"
        )
        // Both lines make the UCS-2 translations (es: "código") 2 SMS: refused at sms.maxSegments
        // 1, so the bill never doubles without the host saying so...
        let refused = refusal { try self.make(appName: "Acme", domain: "login.example.com") }
        XCTAssertTrue(
            refused.contains("sms.templates.es") && refused.contains("takes 2 SMS") && refused.contains("built-in"),
            refused)
        XCTAssertEqual(
            refusal { try self.make(appName: "Acme", domain: "login.example.com", maxSegments: 2) }, "accepted")
        // ... and with the app hash a message must be one SMS whatever sms.maxSegments says: the
        // SMS Retriever API reads only messages of at most 140 bytes.
        let retriever = refusal { try self.make(domain: "login.example.com", hash: "FA+9qCX9VSu", maxSegments: 3) }
        XCTAssertTrue(retriever.contains("SMS Retriever") && retriever.contains("sms.templates.es"), retriever)
        let both = try make(domain: "ex.com", hash: "FA+9qCX9VSu")
        XCTAssertEqual(
            both.body(language: "en", code: "123456", minutes: 5),
            "123456 is your verification code.\n\nFA+9qCX9VSu\n@ex.com #123456")
        for domain in [
            "https://example.com", "example", "exa mple.com", "-x.com", "example.com/path", "example.com:443", "",
            "192.168.0.1",
        ] {
            XCTAssertTrue(
                refusal { try self.make(domain: domain, maxSegments: 2) }.contains("originBoundDomain"), domain)
        }
        for hash in ["short", "FA+9qCX9VSu1", "FA+9qCX9VS!"] {
            XCTAssertTrue(refusal { try self.make(hash: hash, maxSegments: 2) }.contains("androidAppHash"), hash)
        }
    }

    func testTheEngineSendsTheHostTextWithItsCostAndRefusesABadOne() throws {
        let sender = CapturingSender()
        let engine = try Engine(
            config: makeConfig(temporaryDirectory()) {
                $0.smsAppName = "Acme"
                $0.smsTemplates = ["fr": "Acme : {code} ({minutes} min)"]
                $0.smsOriginBoundDomain = "example.com"
            })
        engine.setSMSSender(sender)
        _ = try engine.verification.verifyPhoneNumber("+16505557979", languageCode: "fr-CA")
        let message = try XCTUnwrap(sender.waitForMessage(to: "+16505557979"))
        let code = code(in: message.body)
        XCTAssertEqual(message.body, "Acme : \(code) (5 min)\n\n@example.com #\(code)")
        XCTAssertEqual([message.cost.units, message.cost.segments], [43, 1])
        XCTAssertEqual(message.cost.encoding, .gsm7)
        XCTAssertThrowsError(
            try Engine(config: makeConfig(temporaryDirectory()) { $0.smsTemplates = ["de": "Code: {kode}"] })
        ) { error in
            XCTAssertEqual((error as? PhoneAuthError)?.details.first?.1, .string("sms.templates.de"))
        }
    }

    func testTheConfigurationReadsTheSMSKeysAndADefaultLanguageOfAHostTemplate() throws {
        func read(_ text: String) throws -> EngineConfig { try EngineConfig.read(try JSONCodec.parse(text)) }
        let config = try read(
            #"{"database": "x.db", "defaultLanguageCode": "sw-KE", "sms": {"appName": "Acme", "maxSegments": 2, "#
                + #""templates": {"sw": "{code} ni nambari yako ya {appName}"}, "originBoundDomain": "example.com", "#
                + #""androidAppHash": "FA+9qCX9VSu"}}"#)
        XCTAssertEqual(config.defaultLanguageCode, "sw")
        XCTAssertEqual(config.smsTemplates, ["sw": "{code} ni nambari yako ya {appName}"])
        XCTAssertEqual(
            [config.smsAppName, config.smsOriginBoundDomain, config.smsAndroidAppHash],
            ["Acme", "example.com", "FA+9qCX9VSu"])
        XCTAssertEqual(config.smsMaxSegments, 2)
        // Without the host's template there is no Swahili text to fall back to.
        XCTAssertThrowsError(try read(#"{"database": "x.db", "defaultLanguageCode": "sw"}"#)) { error in
            XCTAssertTrue(
                (error as? PhoneAuthError)?.message.contains("the built-in languages and those of sms.templates")
                    == true)
        }
        XCTAssertThrowsError(try read(#"{"database": "x.db", "sms": {"templates": {"en": 5}}}"#)) { error in
            XCTAssertEqual((error as? PhoneAuthError)?.details.first?.1, .string("sms.templates.en"))
        }
        XCTAssertThrowsError(try read(#"{"database": "x.db", "sms": {"maxSegments": 11}}"#))
    }
}
