import PhoneAuthCore

/// The simulation's SMS provider: keeps each code by verification ID until the simulated user
/// (or the attacker, for numbers it owns) reads it.
final class CodeInbox: SMSSender, @unchecked Sendable {  // its dictionary is only touched under its lock
    private let lock = Lock()
    private var codes: [String: String] = [:]
    /// Codes waited for that never came (a verification reused within the resend window sends none).
    private(set) var missed = 0

    func send(_ message: SMSMessage) -> SMSSendResult {
        lock.withLock {
            codes[message.verificationId] = message.code
            lock.broadcast()
        }
        return .sent(messageId: nil)
    }

    /// The code sent for `verificationId`, once the engine's worker has sent it (nil if it has
    /// not within half a second: the run then counts the user as not entering it).
    func code(for verificationId: String) -> String? {
        lock.withLock {
            for _ in 0..<10 where codes[verificationId] == nil { lock.wait(milliseconds: 50) }
            guard let code = codes.removeValue(forKey: verificationId) else {
                missed += 1
                return nil
            }
            return code
        }
    }
}
