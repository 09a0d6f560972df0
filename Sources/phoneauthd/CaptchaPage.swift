import PhoneAuthCore

/// The captcha page phoneauthd serves when `captcha.pageUrl` is not set. It opens at the URL
/// getCaptchaChallenge returns (`?eventId=…&callbackScheme=…&hl=…`), shows the provider's widget
/// with the site key, and reports back as canHandleURL expects:
/// `<callbackScheme>://phoneauth/link?deep_link_id=<this page?eventId=…&captchaToken=…>`, or
/// `error=cancelled|expired|failed|unavailable`. Its only script besides its own (allowed by a
/// nonce) is the provider's; the Content-Security-Policy allows nothing else.
struct CaptchaPage: Sendable {
    struct Response: Sendable {
        var status: Int
        var html: String
        /// Besides `Content-Type: text/html; charset=utf-8`.
        var headers: [(String, String)]
    }

    private let settings: CaptchaProviderSettings
    private let siteKey: String
    private let defaultLanguage: String

    /// nil when there is no page to serve: no captcha.provider with a siteKey, or the host's page.
    init?(config: EngineConfig) {
        guard config.captchaPageUrl == nil, let settings = config.captchaProvider, let siteKey = settings.siteKey else {
            return nil
        }
        (self.settings, self.siteKey, defaultLanguage) = (settings, siteKey, config.defaultLanguageCode)
    }

    /// The page for a challenge's query, or a 400 page when the query is not one getCaptchaChallenge
    /// makes. `nonce` is fresh for each response.
    func render(query: [(String, String)], nonce: String) -> Response {
        let single = { AppVerificationService.single($0, in: query) }
        let hl = single("hl") ?? defaultLanguage
        guard let eventId = single("eventId"), VerificationCode.isWellFormedId(eventId),
            let scheme = single("callbackScheme"), AppVerificationService.isAppScheme(scheme),
            query.filter({ $0.0 == "hl" }).count <= 1,
            (1...35).contains(hl.utf8.count), hl.utf8.allSatisfy(CaptchaProviderSettings.isTokenByte)
        else {
            return Response(
                status: 400,
                html: "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Invalid link</title>"
                    + "<p>This link is not valid: go back to the app and try again.</p></html>",
                headers: headers(
                    policy: "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"))
        }
        let widget = CaptchaWidget(settings, language: hl)
        let language = SMSTemplates.resolve(hl, fallback: "en", known: { Self.texts[$0] != nil })
        let html = html(
            widget: widget, text: Self.texts[language] ?? Self.texts["en"]!, language: language, hl: hl,
            challenge: [("eventId", .string(eventId)), ("callbackScheme", .string(scheme))], nonce: nonce)
        return Response(status: 200, html: html, headers: headers(policy: policy(widget, nonce)))
    }

    private func headers(policy: String) -> [(String, String)] {
        [
            ("Content-Security-Policy", policy),
            ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"), ("X-Content-Type-Options", "nosniff"),
        ]
    }

    private func policy(_ widget: CaptchaWidget, _ nonce: String) -> String {
        func directive(_ name: String, _ sources: [String]) -> String {
            "\(name) \(sources.isEmpty ? "'none'" : sources.joined(separator: " "))"
        }
        return [
            "default-src 'none'",
            directive("script-src", ["'nonce-\(nonce)'"] + widget.scriptSources),
            directive("frame-src", widget.frameSources),
            directive("connect-src", widget.connectSources),
            // The widgets style their own elements inline.
            directive("style-src", ["'unsafe-inline'"] + widget.styleSources),
            "img-src data:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// The page; `language` is its words', `hl` the widget's, `challenge` the checked query.
    private func html(
        widget: CaptchaWidget, text: Text, language: String, hl: String, challenge: [(String, JSONValue)], nonce: String
    ) -> String {
        let json = scriptConfig(widget: widget, hl: hl, challenge: challenge)
        // A score key shows nothing to complete.
        let lead = settings.widget == .score ? "" : "<p>\(text.lead)</p>\n"
        return """
            <!doctype html>
            <html lang="\(language)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(text.title)</title>
            \(Self.style)
            </head>
            <body>
            \(Self.main(text, lead: lead))
            \(Self.script(config: json, nonce: nonce))
            </body>
            </html>

            """
    }

    /// What the page's script needs, as JSON it can hold: the checked query, the widget's API,
    /// script and options, and the site key.
    private func scriptConfig(widget: CaptchaWidget, hl: String, challenge: [(String, JSONValue)]) -> String {
        var query = "onload=phoneauthCaptchaLoaded"
        query += settings.widget == .score ? "&render=\(siteKey)" : "&render=explicit"
        if widget.languageInScript { query += "&hl=\(hl)" }
        var config: [(String, JSONValue)] =
            challenge + [
                ("api", .string(widget.api)), ("siteKey", .string(siteKey)),
                ("widget", .string(settings.widget.rawValue)),
                ("script", .string(widget.scriptUrl + "?" + query)), ("options", .object(widget.options)),
                ("failures", .object(widget.failures.map { ($0.0, .string($0.1)) })),
            ]
        if let action = settings.action { config.append(("action", .string(action))) }
        // JSON inside a script element: no "<" may end it early.
        return JSONCodec.serialize(.object(config)).split(separator: "<", omittingEmptySubsequences: false)
            .joined(separator: "\\u003c")
    }

    struct Text {
        let title, lead, cancel, noScript: String
    }

    /// The page's words in the languages the SMS texts have; the widget translates itself.
    static let texts: [String: Text] = [
        "en": Text(
            title: "Security check", lead: "Complete the check below to get your verification code.", cancel: "Cancel",
            noScript: "This check needs JavaScript."),
        "fr": Text(
            title: "Vérification de sécurité",
            lead: "Effectuez la vérification ci-dessous pour recevoir votre code de vérification.", cancel: "Annuler",
            noScript: "Cette vérification nécessite JavaScript."),
        "de": Text(
            title: "Sicherheitsprüfung",
            lead: "Schließen Sie die Prüfung unten ab, um Ihren Bestätigungscode zu erhalten.", cancel: "Abbrechen",
            noScript: "Für diese Prüfung ist JavaScript erforderlich."),
        "es": Text(
            title: "Comprobación de seguridad",
            lead: "Completa la comprobación de abajo para recibir tu código de verificación.", cancel: "Cancelar",
            noScript: "Esta comprobación necesita JavaScript."),
        "pt": Text(
            title: "Verificação de segurança",
            lead: "Conclua a verificação abaixo para receber o seu código de verificação.", cancel: "Cancelar",
            noScript: "Esta verificação precisa de JavaScript."),
        "it": Text(
            title: "Controllo di sicurezza",
            lead: "Completa il controllo qui sotto per ricevere il tuo codice di verifica.", cancel: "Annulla",
            noScript: "Questo controllo richiede JavaScript."),
        "nl": Text(
            title: "Beveiligingscontrole", lead: "Voltooi de controle hieronder om je verificatiecode te ontvangen.",
            cancel: "Annuleren", noScript: "Voor deze controle is JavaScript nodig."),
        "ru": Text(
            title: "Проверка безопасности", lead: "Пройдите проверку ниже, чтобы получить код подтверждения.",
            cancel: "Отмена", noScript: "Для этой проверки нужен JavaScript."),
        "zh-TW": Text(title: "安全性檢查", lead: "請完成下方的檢查以取得驗證碼。", cancel: "取消", noScript: "此檢查需要 JavaScript。"),
        "zh-CN": Text(title: "安全检查", lead: "请完成下方的检查以获取验证码。", cancel: "取消", noScript: "此检查需要 JavaScript。"),
        "id": Text(
            title: "Pemeriksaan keamanan",
            lead: "Selesaikan pemeriksaan di bawah untuk mendapatkan kode verifikasi Anda.",
            cancel: "Batal", noScript: "Pemeriksaan ini memerlukan JavaScript."),
        "ja": Text(
            title: "セキュリティチェック", lead: "認証コードを受け取るには、下のチェックを完了してください。", cancel: "キャンセル",
            noScript: "このチェックには JavaScript が必要です。"),
        "ko": Text(
            title: "보안 확인", lead: "인증 코드를 받으려면 아래 확인을 완료하세요.", cancel: "취소",
            noScript: "이 확인을 진행하려면 JavaScript가 필요합니다."),
    ]
}
