import Glibc
import PhoneAuthCore

/// The host's captcha verifier: gets {token, clientIp?} as JSON and writes {success, score?} into
/// a buffer the library owns; a non-zero return or an unreadable answer means it could not check.
// @unchecked: the host's function and context pointer, which the header says must be callable
// from any thread.
final class CallbackCaptchaVerifier: CaptchaVerifier, @unchecked Sendable {
    typealias Function =
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int32

    static let responseSize = 1024

    private let function: Function
    private let context: UnsafeMutableRawPointer?

    init(function: Function, context: UnsafeMutableRawPointer?) {
        self.function = function
        self.context = context
    }

    func verify(token: String, clientIp: String?) -> CaptchaVerdict? {
        var request = JSONObjectBuilder()
        request.set("token", .string(token))
        request.set("clientIp", clientIp.map { .string($0) })
        var response = [CChar](repeating: 0, count: Self.responseSize)
        let status = ABI.withJSONText(request.value) { text in
            response.withUnsafeMutableBufferPointer { function(context, text, $0.baseAddress, $0.count) }
        }
        response[Self.responseSize - 1] = 0
        guard status == 0, let answer = try? JSONCodec.parse(String(cString: response)),
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
