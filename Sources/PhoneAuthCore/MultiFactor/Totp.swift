import Crypto

/// Time-based one-time passwords (RFC 6238 over RFC 4226): HMAC-SHA1, 6 digits, 30-second steps,
/// the parameters every authenticator app supports.
package enum Totp {
    package static let secretBytes = 20
    package static let digits = 6
    package static let periodSeconds: Int64 = 30
    /// Steps either side of the current one still accepted, for clock drift and typing time.
    static let tolerance: Int64 = 1

    package static func newSecret() -> [UInt8] { SecureBytes.random(count: secretBytes) }

    package static func step(at time: Timestamp) -> Int64 { time.seconds / periodSeconds }

    /// The code of `step` (RFC 4226 dynamic truncation), `length` digits with leading zeros.
    package static func code(secret: [UInt8], step: Int64, length: Int = digits) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Array($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value =
            (UInt32(mac[offset]) & 0x7f) << 24 | UInt32(mac[offset + 1]) << 16 | UInt32(mac[offset + 2]) << 8
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<length { modulus *= 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: length - text.count) + text
    }

    /// The step `code` is valid for at `time` (±tolerance), if it is later than `lastStep`: each
    /// step's code is accepted once. Every candidate is compared, in constant time.
    package static func matchingStep(secret: [UInt8], code: String, at time: Timestamp, after lastStep: Int64) -> Int64?
    {
        let now = step(at: time)
        var matched: Int64?
        for candidate in (now - tolerance)...(now + tolerance) {
            if SecureBytes.equal(Array(code.utf8), Array(self.code(secret: secret, step: candidate).utf8))
                && candidate > lastStep
            {
                matched = candidate
            }
        }
        return matched
    }

    /// The otpauth:// URI authenticator apps import (as a QR code), Google Authenticator's format.
    package static func uri(secret: [UInt8], account: String, issuer: String) -> String {
        let label = PercentEncoding.encode(issuer) + ":" + PercentEncoding.encode(account)
        return
            "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(PercentEncoding.encode(issuer))"
            + "&algorithm=SHA1&digits=\(digits)&period=\(periodSeconds)"
    }
}
