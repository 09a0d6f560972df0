/// The host's push sender and captcha verifier, replaceable at any time.
final class AppVerificationHooks: @unchecked Sendable {
    private let lock = Lock()
    private var push: PushSender?
    private var captcha: CaptchaVerifier?

    var pushSender: PushSender? {
        get { lock.withLock { push } }
        set { lock.withLock { push = newValue } }
    }

    var captchaVerifier: CaptchaVerifier? {
        get { lock.withLock { captcha } }
        set { lock.withLock { captcha = newValue } }
    }

    /// Installing either turns enforcement on unless the configuration says otherwise.
    var anyInstalled: Bool { lock.withLock { push != nil || captcha != nil } }
}
