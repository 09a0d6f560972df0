/// Checks a captcha token (reCAPTCHA, hCaptcha, Turnstile, …) the host's way. nil when the check
/// could not be made (the verifier's own failure). `phoneNumber` is given when the send's
/// toll fraud risk is wanted (pumping.tollFraud), for the verifier to rate.
package protocol CaptchaVerifier: AnyObject, Sendable {
    func verify(token: String, clientIp: String?, phoneNumber: String?) -> CaptchaVerdict?
}

package struct CaptchaVerdict: Sendable {
    package var success: Bool
    /// The provider's score (0 to 1, higher is more likely human), when it gives one.
    package var score: Double?
    /// Why the token is refused, when the verifier knows better than "rejected".
    package var refusal: CaptchaRefusal?
    /// How likely the send is SMS toll fraud (0 to 1, higher is riskier), when asked and given.
    package var tollFraudRisk: Double?

    package init(success: Bool, score: Double?, tollFraudRisk: Double? = nil) {
        self.success = success
        self.score = score
        self.tollFraudRisk = tollFraudRisk
    }

    package init(refusal: CaptchaRefusal) {
        success = false
        self.refusal = refusal
    }

    /// The verdict, or nil (an answer that cannot be read) when its risk is not between 0 and 1:
    /// a percentage or garbage would otherwise block, or pass, every send.
    package var checked: CaptchaVerdict? {
        guard let tollFraudRisk else { return self }
        return (0...1).contains(tollFraudRisk) ? self : nil
    }
}

/// Why a captcha token was refused (`captchaCheckFailed`'s `details.reason`).
package enum CaptchaRefusal: String, Sendable, CaseIterable {
    /// No verifier is installed.
    case noVerifier
    /// The token proved an earlier request.
    case alreadyUsed
    /// The verifier could not check it (or answered nothing usable).
    case verifierFailed
    /// The verifier said no.
    case rejected
    /// The score is below `captcha.minScore`.
    case lowScore
    /// The provider says the token is too old (reCAPTCHA and Turnstile: or was used before).
    case expired
    /// The token was solved on another site, or for another action, than `captcha.provider` expects.
    case wrongHostname, wrongAction
    /// The provider rated the send as likely SMS toll fraud, at or above a blocking rule's
    /// start score (pumping.tollFraud).
    case tollFraudRisk

    var message: String {
        switch self {
        case .noVerifier: "No captcha verifier is installed (phoneauth_set_captcha_verifier)."
        case .alreadyUsed: "This captcha token was already used; solve a new captcha."
        case .verifierFailed: "The captcha verifier could not check the token."
        case .rejected: "The captcha verifier rejected the token."
        case .lowScore: "The captcha score is below captcha.minScore."
        case .expired: "The captcha token has expired (or was already used); solve a new captcha."
        case .wrongHostname: "The captcha was solved on another site than captcha.provider.hostname."
        case .wrongAction: "The captcha was solved for another action than captcha.provider.action."
        case .tollFraudRisk: "The captcha provider rated this send as likely SMS toll fraud (pumping.tollFraud)."
        }
    }

    var error: PhoneAuthError {
        PhoneAuthError(.captchaCheckFailed, message, details: [("reason", .string(rawValue))])
    }
}

/// The built-in captcha verifier: asks the configured service (`captcha.provider`) about each
/// token over HTTPS. reCAPTCHA, hCaptcha and Turnstile answer a form POST to their siteverify
/// endpoint; reCAPTCHA Enterprise creates an assessment. No answer, or one it cannot read, is
/// `verifierFailed` (nil), never a pass; the secret goes only into the request.
final class ProviderCaptchaVerifier: CaptchaVerifier {
    private let settings: CaptchaProviderSettings
    private let client = HTTPClient()

    init(_ settings: CaptchaProviderSettings) { self.settings = settings }

    func verify(token: String, clientIp: String?, phoneNumber: String?) -> CaptchaVerdict? {
        let request = request(token: token, clientIp: clientIp, phoneNumber: phoneNumber)
        guard case let .answered(status, body, _) = client.post(request),
            status == 200, let answer = try? JSONCodec.parse(bytes: body)
        else { return nil }
        return settings.kind == .recaptchaEnterprise ? assessment(answer) : siteverify(answer)
    }

    private func request(token: String, clientIp: String?, phoneNumber: String?) -> HTTPRequest {
        let endpoint = settings.endpoint
        let url: String
        let body: [UInt8]
        let contentType: String
        switch settings.kind {
        case .recaptchaEnterprise:
            url =
                "\(endpoint.baseUrl)/v1/projects/\(settings.projectId ?? "")/assessments?key="
                + PercentEncoding.encode(settings.secret)
            var event = JSONObjectBuilder()
            event.set("token", .string(token))
            event.set("siteKey", settings.siteKey.map { .string($0) })
            event.set("expectedAction", settings.action.map { .string($0) })
            event.set("userIpAddress", clientIp.map { .string($0) })
            // The number is what SMS toll fraud protection rates (phoneFraudAssessment).
            if let phoneNumber {
                event.set(
                    "userInfo", .object([("userIds", .array([.object([("phoneNumber", .string(phoneNumber))])]))]))
            }
            var object = JSONObjectBuilder()
            object.set("event", event.value)
            body = Array(JSONCodec.serialize(object.value).utf8)
            contentType = "application/json"
        case .recaptcha, .hcaptcha, .turnstile:
            url = endpoint.baseUrl + Self.siteverifyPath(settings.kind)
            body = HTTPEndpoint.form([
                ("secret", settings.secret), ("response", token), ("remoteip", clientIp),
                ("sitekey", settings.kind == .hcaptcha ? settings.siteKey : nil),
            ])
            contentType = "application/x-www-form-urlencoded"
        }
        return endpoint.post(url, body: body, headers: ["Content-Type: \(contentType)", "Accept: application/json"])
    }

    private static func siteverifyPath(_ kind: CaptchaProviderSettings.Kind) -> String {
        switch kind {
        case .recaptcha: "/recaptcha/api/siteverify"
        case .turnstile: "/turnstile/v0/siteverify"
        case .hcaptcha, .recaptchaEnterprise: "/siteverify"
        }
    }

    /// reCAPTCHA, hCaptcha and Turnstile: `success`, `hostname`, `action` and `score` (where the
    /// service gives them), and `error-codes` when it says no.
    private func siteverify(_ answer: JSONValue) -> CaptchaVerdict? {
        guard case let .bool(success)? = answer["success"] else { return nil }
        guard success else {
            let codes = Set((answer["error-codes"]?.arrayValue ?? []).compactMap(\.stringValue))
            // The service's complaints about its own configuration are not the token's fault.
            let misconfigured: Set<String> = [
                "missing-input-secret", "invalid-input-secret", "sitekey-secret-mismatch", "bad-request",
                "internal-error", "invalid-keys",
            ]
            if !codes.isDisjoint(with: misconfigured) { return nil }
            if !codes.isDisjoint(with: ["already-seen-response", "invalid-or-already-seen-response"]) {
                return CaptchaVerdict(refusal: .alreadyUsed)
            }
            // reCAPTCHA and Turnstile say "timeout-or-duplicate" for both: too old or used before.
            if !codes.isDisjoint(with: ["timeout-or-duplicate", "expired-input-response"]) {
                return CaptchaVerdict(refusal: .expired)
            }
            return CaptchaVerdict(refusal: .rejected)
        }
        return checked(
            hostname: answer["hostname"]?.stringValue, action: answer["action"]?.stringValue,
            score: answer["score"]?.doubleValue)
    }

    /// reCAPTCHA Enterprise: `tokenProperties` (`valid`, `invalidReason`, `hostname`, `action`),
    /// `riskAnalysis.score` and `phoneFraudAssessment.smsTollFraudVerdict.risk`.
    private func assessment(_ answer: JSONValue) -> CaptchaVerdict? {
        guard let properties = answer["tokenProperties"], case let .bool(valid)? = properties["valid"] else {
            return nil
        }
        guard valid else {
            switch properties["invalidReason"]?.stringValue {
            case "EXPIRED": return CaptchaVerdict(refusal: .expired)
            case "DUPE": return CaptchaVerdict(refusal: .alreadyUsed)
            default: return CaptchaVerdict(refusal: .rejected)
            }
        }
        var verdict = checked(
            hostname: properties["hostname"]?.stringValue, action: properties["action"]?.stringValue,
            score: answer["riskAnalysis"]?["score"]?.doubleValue)
        verdict.tollFraudRisk = answer["phoneFraudAssessment"]?["smsTollFraudVerdict"]?["risk"]?.doubleValue
        return verdict.checked
    }

    /// A good token's answer, against the hostname and action it must name.
    private func checked(hostname: String?, action: String?, score: Double?) -> CaptchaVerdict {
        if let expected = settings.hostname, hostname != expected { return CaptchaVerdict(refusal: .wrongHostname) }
        if let expected = settings.action, let action, action != expected {
            return CaptchaVerdict(refusal: .wrongAction)
        }
        return CaptchaVerdict(success: true, score: score)
    }
}
