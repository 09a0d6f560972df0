/// The host's push sender, captcha verifier and served captcha page, replaceable at any time.
final class AppVerificationHooks: @unchecked Sendable {  // the installed hooks are only read and written under `lock`
    private let lock = Lock()
    private var push: PushSender?
    private var captcha: CaptchaVerifier?
    private var everInstalled = false
    private var page: String?

    var pushSender: PushSender? {
        get { lock.withLock { push } }
        set {
            lock.withLock {
                push = newValue; everInstalled = everInstalled || newValue != nil
            }
        }
    }

    var captchaVerifier: CaptchaVerifier? {
        get { lock.withLock { captcha } }
        set {
            lock.withLock {
                captcha = newValue; everInstalled = everInstalled || newValue != nil
            }
        }
    }

    var captchaPage: String? {
        get { lock.withLock { page } }
        set { lock.withLock { page = newValue } }
    }

    /// Installing either turns enforcement on for good (unless the configuration says otherwise):
    /// replacing a hook must not open a window in which no proof is needed.
    var anyInstalled: Bool { lock.withLock { everInstalled } }
}
