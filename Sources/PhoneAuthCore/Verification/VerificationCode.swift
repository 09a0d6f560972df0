/// One-time codes and the identifiers around them, all from the system CSPRNG.
package enum VerificationCode {
    /// `length` uniform decimal digits (rejection sampling inside `random(in:)`, so no modulo bias).
    package static func generate(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var upper: UInt64 = 1
        for _ in 0..<length { upper *= 10 }
        let value = UInt64.random(in: 0..<upper, using: &generator)
        let digits = String(value)
        return String(repeating: "0", count: length - digits.count) + digits
    }

    /// Random bits in a verification ID, after its time prefix.
    static let idRandomBytes = 18

    /// The creation time and 144 random bits: 36 URL-safe characters (see SortableID).
    package static func newVerificationId(at time: Timestamp) -> String {
        SortableID.make(at: time, randomBytes: idRandomBytes)
    }

    /// Whether `id` has the shape of a verification ID, checked before any store access.
    package static func isWellFormedId(_ id: String) -> Bool { SortableID.isWellFormed(id, randomBytes: idRandomBytes) }
}
