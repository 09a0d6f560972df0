/// Reads the CBOR (RFC 8949) a WebAuthn authenticator writes: an attestation object (a map of
/// `fmt`, `attStmt`, `authData`) and a COSE public key (a map of small integers). Definite
/// lengths only, as WebAuthn's CTAP2 canonical form has; nesting and sizes are bounded, and
/// anything else is nil, never a crash. Values keep their bytes' place, so a part can be handed
/// on as the bytes it was (libfido2 takes the attestation statement as CBOR).
struct CBORReader {
    /// A decoded item and where its encoding lies in the input.
    indirect enum Item: Equatable {
        case unsigned(UInt64)
        case negative(UInt64)  // the value is -1 - n
        case bytes([UInt8])
        case text(String)
        case array([Item])
        case map([(key: Item, value: Item, range: Range<Int>)])
        case simple(UInt8)

        static func == (a: Item, b: Item) -> Bool {
            switch (a, b) {
            case let (.unsigned(x), .unsigned(y)), let (.negative(x), .negative(y)): x == y
            case let (.bytes(x), .bytes(y)): x == y
            case let (.text(x), .text(y)): x == y
            case let (.array(x), .array(y)): x == y
            case let (.simple(x), .simple(y)): x == y
            case let (.map(x), .map(y)):
                x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: false
            }
        }

        /// The integer this item is, when it is one that fits.
        var int: Int64? {
            switch self {
            case let .unsigned(n): n <= UInt64(Int64.max) ? Int64(n) : nil
            case let .negative(n): n < UInt64(Int64.max) ? -1 - Int64(n) : nil
            default: nil
            }
        }

        /// The value of `key` in this map (and its encoding's place), or nil.
        func entry(_ key: Item) -> (value: Item, range: Range<Int>)? {
            guard case let .map(pairs) = self, let pair = pairs.first(where: { $0.key == key }) else { return nil }
            return (pair.value, pair.range)
        }

        subscript(text key: String) -> Item? { entry(.text(key))?.value }
        subscript(int key: Int64) -> Item? {
            entry(key < 0 ? .negative(UInt64(-1 - key)) : .unsigned(UInt64(key)))?.value
        }
    }

    private let bytes: [UInt8]
    private(set) var offset: Int
    private static let maxDepth = 8
    private static let maxItems = 1024

    init(_ bytes: [UInt8], at offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// The item at the reader's place, and the reader moved past it; nil for what is not
    /// well-formed (or deeper or longer than an authenticator's output is).
    mutating func read(depth: Int = 0) -> Item? {
        guard depth < Self.maxDepth, offset < bytes.count else { return nil }
        let initial = bytes[offset]
        offset += 1
        let major = initial >> 5
        guard let argument = argument(initial & 0x1f) else { return nil }
        switch major {
        case 0: return .unsigned(argument)
        case 1: return .negative(argument)
        case 2, 3:
            guard argument <= UInt64(bytes.count - offset) else { return nil }
            let body = Array(bytes[offset..<offset + Int(argument)])
            offset += Int(argument)
            if major == 2 { return .bytes(body) }
            guard let text = String(validating: body, as: UTF8.self) else { return nil }
            return .text(text)
        case 4:
            guard argument <= UInt64(Self.maxItems) else { return nil }
            var items: [Item] = []
            for _ in 0..<argument {
                guard let item = read(depth: depth + 1) else { return nil }
                items.append(item)
            }
            return .array(items)
        case 5:
            guard argument <= UInt64(Self.maxItems) else { return nil }
            var pairs: [(key: Item, value: Item, range: Range<Int>)] = []
            for _ in 0..<argument {
                guard let key = read(depth: depth + 1) else { return nil }
                let start = offset
                guard let value = read(depth: depth + 1) else { return nil }
                pairs.append((key, value, start..<offset))
            }
            return .map(pairs)
        case 7:
            // false, true, null, undefined; no floats or breaks in an authenticator's output.
            guard initial & 0x1f < 24, (20...23).contains(argument) else { return nil }
            return .simple(UInt8(argument))
        default: return nil  // tags and indefinite lengths
        }
    }

    /// The argument that follows an initial byte's low five bits.
    private mutating func argument(_ info: UInt8) -> UInt64? {
        if info < 24 { return UInt64(info) }
        let width: Int
        switch info {
        case 24: width = 1
        case 25: width = 2
        case 26: width = 4
        case 27: width = 8
        default: return nil
        }
        guard bytes.count - offset >= width else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + width] { value = value << 8 | UInt64(byte) }
        offset += width
        return value
    }

    /// The one item `bytes` hold, with nothing after it.
    static func item(_ bytes: [UInt8]) -> Item? {
        var reader = CBORReader(bytes)
        guard let item = reader.read(), reader.offset == bytes.count else { return nil }
        return item
    }
}
