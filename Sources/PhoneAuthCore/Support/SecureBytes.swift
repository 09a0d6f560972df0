/// Random bytes from the system CSPRNG and constant-time comparison.
public enum SecureBytes {
    /// SystemRandomNumberGenerator reads the kernel CSPRNG (getrandom); taking 8 bytes a call
    /// keeps it to one system call per word instead of one per byte.
    public static func random(count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
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
