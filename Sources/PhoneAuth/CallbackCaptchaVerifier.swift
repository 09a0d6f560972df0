import Glibc
import PhoneAuthCore

/// The host's captcha verifier: gets {token, clientIp?, phoneNumber?} as JSON and writes
/// {success, score?, tollFraudRisk?} into a buffer the library owns; a non-zero return or an
/// unreadable answer means it could not check.
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

    func verify(token: String, clientIp: String?, phoneNumber: String?) -> CaptchaVerdict? {
        var request = JSONObjectBuilder()
        request.set("token", .string(token))
        request.set("clientIp", clientIp.map { .string($0) })
        request.set("phoneNumber", phoneNumber.map { .string($0) })
        guard let answer = ABI.ask(function, context, request.value, size: Self.responseSize),
            case let .bool(success)? = answer["success"]
        else {
            return nil
        }
        // A score or risk that is not a number is an answer we cannot read.
        guard let score = Self.number(answer["score"]), let risk = Self.number(answer["tollFraudRisk"]) else {
            return nil
        }
        return CaptchaVerdict(success: success, score: score, tollFraudRisk: risk).checked
    }

    /// A number, `.some(nil)` when left out, nil when it is something else.
    private static func number(_ value: JSONValue?) -> Double?? {
        switch value {
        case let .double(d)?: d
        case let .int(i)?: Double(i)
        case nil, .null?: .some(nil)
        default: nil
        }
    }
}
