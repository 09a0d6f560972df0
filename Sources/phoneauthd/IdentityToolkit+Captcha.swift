import PhoneAuthCore
import PhoneAuthKit

/// What the SDKs read of the captcha configuration before they ask for a token.
extension IdentityToolkit {
    /// The reCAPTCHA (v2) site key the web SDK's RecaptchaVerifier renders with.
    func recaptchaParams() throws -> JSONValue {
        guard let captcha, captcha.kind == .recaptcha, let siteKey = captcha.siteKey else {
            throw ToolkitError(
                400, "OPERATION_NOT_ALLOWED",
                "No reCAPTCHA site key is configured (captcha.provider of type recaptcha with a siteKey).")
        }
        return .object([
            ("kind", .string("identitytoolkit#GetRecaptchaParamResponse")), ("recaptchaSiteKey", .string(siteKey)),
        ])
    }

    /// Whether phone sign-in wants a reCAPTCHA Enterprise token (`captchaResponse`), as the iOS and
    /// web SDKs read it, with the key as `projects/{project}/keys/{siteKey}` when a
    /// recaptchaEnterprise provider checks the tokens: ENFORCE when app verification requires a
    /// proof; AUDIT when it does not but the pool's `pumping.tollFraud` rates sends (a token is
    /// then checked and rated when sent, and the web SDK falls back to `NO_RECAPTCHA` and a v2
    /// token when it cannot get one); otherwise OFF, and the SDKs use the silent push or the
    /// reCAPTCHA v2 fallback. The query's `tenantId` names the tenant, whose settings count.
    func recaptchaConfig() async throws -> JSONValue {
        var state = "OFF"
        var o = JSONObjectBuilder()
        let engine = auth.engine
        if let captcha, captcha.kind == .recaptchaEnterprise, let siteKey = captcha.siteKey,
            let project = captcha.projectId
        {
            if engine.appVerification.appVerificationEnforced {
                state = "ENFORCE"
            } else if try await pumping().ratesSends {
                state = "AUDIT"
            }
            if state != "OFF" { o.set("recaptchaKey", .string("projects/\(project)/keys/\(siteKey)")) }
        }
        o.set(
            "recaptchaEnforcementState",
            .array([.object([("provider", .string("PHONE_PROVIDER")), ("enforcementState", .string(state))])]))
        return o.value
    }

    /// The pumping policy the request's pool (the engine's, or the tenant's over it) judges by.
    private func pumping() async throws -> PumpingPolicy {
        guard let tenant = auth.tenantID else { return auth.engine.config.pumping }
        return auth.engine.config.pumping.overridden(by: try await auth.getTenant(tenant).record.settings.pumping)
    }
}
