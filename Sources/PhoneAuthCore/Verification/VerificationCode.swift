/// One-time codes and the identifiers around them, all from the system CSPRNG.
public enum VerificationCode {
    /// `length` uniform decimal digits (rejection sampling inside `random(in:)`, so no modulo bias).
    public static func generate(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var upper: UInt64 = 1
        for _ in 0..<length { upper *= 10 }
        let value = UInt64.random(in: 0..<upper, using: &generator)
        let digits = String(value)
        return String(repeating: "0", count: length - digits.count) + digits
    }

    /// 192 random bits, base64url: 32 characters.
    public static func newVerificationId() -> String { Base64URL.encode(SecureBytes.random(count: 24)) }

    /// Whether `id` has the shape of a verification ID, checked before any store access.
    public static func isWellFormedId(_ id: String) -> Bool {
        id.utf8.count == 32 && Base64URL.decode(id) != nil
    }

    public static func isWellFormedCode(_ code: String, length: Int) -> Bool {
        code.utf8.count == length && code.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }
}
