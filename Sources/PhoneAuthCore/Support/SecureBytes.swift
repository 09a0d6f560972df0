import Crypto

/// Random bytes from a CSPRNG and constant-time comparison.
public enum SecureBytes {
    /// BoringSSL's generator (seeded from the kernel's getrandom), through swift-crypto: one call
    /// for any length, where the standard library's generator makes a system call per 8 bytes.
    public static func random(count: Int) -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }

    /// Compares without an early exit, so timing reveals nothing about where bytes differ.
    public static func equal<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
