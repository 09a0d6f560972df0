/// A repeatable random source (SplitMix64): the same seed gives the same traffic, so two runs
/// of the simulation differ only in what the engine decides.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number of `count` decimal digits, leading zeros kept.
    mutating func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &self))) })
    }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// A random public /24 (its first three numbers): none of the simulated carriers' own.
    mutating func network() -> String {
        let (a, b, c) = (
            Int.random(in: 11...99, using: &self), UInt8.random(in: 0...255, using: &self),
            UInt8.random(in: 0...255, using: &self)
        )
        return "\(a).\(b).\(c)"
    }

    /// A host's last number in a /24, with its dot.
    mutating func host() -> String { ".\(Int.random(in: 1...254, using: &self))" }
}
