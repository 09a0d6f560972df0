import Glibc
import PhoneAuthCore

/// The host's captcha verifier: gets {token, clientIp?} as JSON and writes {success, score?} into
/// a buffer the library owns; a non-zero return or an unreadable answer means it could not check.
// @unchecked: the host's function and context pointer, which the header says must be callable
// from any thread.
final class CallbackCaptchaVerifier: CaptchaVerifier, @unchecked Sendable {
    static let responseSize = 1024

    private let function: ABI.AnsweringFunction
    private let context: UnsafeMutableRawPointer?

    init(function: ABI.AnsweringFunction, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func verify(token: String, clientIp: String?) -> CaptchaVerdict? {
        var request = JSONObjectBuilder()
        request.set("token", .string(token))
        request.set("clientIp", clientIp.map { .string($0) })
        guard let answer = ABI.ask(function, context, request.value, size: Self.responseSize),
            case let .bool(success)? = answer["success"]
        else {
            return nil
        }
        var score: Double?
        switch answer["score"] {
        case let .double(d)?: score = d
        case let .int(i)?: score = Double(i)
        case nil, .null?: score = nil
        default: return nil  // a score that is not a number is an answer we cannot read
        }
        return CaptchaVerdict(success: success, score: score)
    }
}
