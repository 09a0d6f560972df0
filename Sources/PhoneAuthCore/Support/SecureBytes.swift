import CRandom

/// Random bytes from the kernel CSPRNG and constant-time comparison.
package enum SecureBytes {
    /// One getrandom call for the whole buffer (the standard library's generator makes one per
    /// 8 bytes).
    package static func random(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBytes { pa_random_bytes($0.baseAddress, count) }
        if status != 0 {
            // getrandom does not fail on Linux 3.17+ once booted; should it, the standard
            // library's generator reads the same kernel source.
            var generator = SystemRandomNumberGenerator()
            for i in 0..<count { bytes[i] = UInt8.random(in: .min ... .max, using: &generator) }
        }
        return bytes
    }

    /// Compares without an early exit, so timing reveals nothing about where bytes differ.
    package static func equal<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
