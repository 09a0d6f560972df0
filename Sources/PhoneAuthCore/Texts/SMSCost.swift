/// What one SMS text costs to send: the encoding its characters force and the number of
/// segments (separate messages a carrier bills) it takes.
///
/// GSM-7 (GSM 03.38's default alphabet) carries 160 septets in one message, 153 per segment of a
/// longer one; each character of the extension table (`€`, `[`, `{`, …) takes two septets, an
/// escape and itself, which never straddle two segments. Any other character makes the whole text
/// UCS-2: 70 UTF-16 code units in one message, 67 per segment, and a character outside the Basic
/// Multilingual Plane (a surrogate pair) is never split either.
package struct SMSCost: Sendable, Equatable {
    package enum Encoding: String, Sendable {
        case gsm7 = "GSM-7"
        case ucs2 = "UCS-2"
    }

    package let encoding: Encoding
    /// Septets (GSM-7) or UTF-16 code units (UCS-2) of the whole text.
    package let units: Int
    package let segments: Int

    package init(of text: String) {
        // One pass for the usual case, a text that fits one message; segments are counted
        // character by character only for a longer one.
        var septets = 0, codeUnits = 0, isGSM7 = true
        for scalar in text.unicodeScalars {
            codeUnits += Self.codeUnits(scalar)
            if isGSM7 {
                if let count = GSM7.septets(scalar) { septets += count } else { isGSM7 = false }
            }
        }
        if isGSM7 {
            encoding = .gsm7
            units = septets
            segments = Self.segments(text, units: septets, single: 160, perSegment: 153) { GSM7.septets($0) ?? 1 }
        } else {
            encoding = .ucs2
            units = codeUnits
            segments = Self.segments(text, units: codeUnits, single: 70, perSegment: 67, cost: Self.codeUnits)
        }
    }

    private static func codeUnits(_ scalar: Unicode.Scalar) -> Int { scalar.value > 0xFFFF ? 2 : 1 }

    /// Segments of a text of `units`: `cost` gives each character's units, which a segment
    /// boundary never splits.
    private static func segments(
        _ text: String, units: Int, single: Int, perSegment: Int, cost: (Unicode.Scalar) -> Int
    ) -> Int {
        guard units > single else { return 1 }
        var count = 1, used = 0
        for scalar in text.unicodeScalars {
            let units = cost(scalar)
            if used + units > perSegment {
                count += 1
                used = 0
            }
            used += units
        }
        return count
    }
}
