/// The GSM 03.38 default alphabet, which an SMS carries at 7 bits a character; a text with any
/// other character goes as UCS-2 (Vonage's `type=unicode`).
enum GSM7 {
    /// The basic table (one septet each); ESC (0x1B) itself is not a character of a text.
    static let basic: Set<Unicode.Scalar> = Set(
        ("@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà").unicodeScalars)
    /// The extension table: each costs two septets (ESC and the character).
    static let extended: Set<Unicode.Scalar> = Set("^{}\\[~]|€\u{0C}".unicodeScalars)

    /// Septets of each ASCII scalar (0: not in the alphabet), so most text never hashes.
    private static let asciiSeptets: [UInt8] = (0..<128).map { value in
        let scalar = Unicode.Scalar(UInt8(value))
        return basic.contains(scalar) ? 1 : extended.contains(scalar) ? 2 : 0
    }

    /// The septets `scalar` takes (1, or 2 for the extension table); nil if it is not in the alphabet.
    static func septets(_ scalar: Unicode.Scalar) -> Int? {
        let count =
            scalar.isASCII
            ? Int(asciiSeptets[Int(scalar.value)]) : basic.contains(scalar) ? 1 : extended.contains(scalar) ? 2 : 0
        return count == 0 ? nil : count
    }

    /// Whether `text` (character by character: "\r\n" is two) can be sent in the GSM-7 alphabet.
    static func canEncode(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { septets($0) != nil }
    }
}
