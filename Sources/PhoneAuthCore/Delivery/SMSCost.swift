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
        if GSM7.canEncode(text) {
            let costs = text.unicodeScalars.map { GSM7.extended.contains($0) ? 2 : 1 }
            self.init(.gsm7, costs: costs, single: 160, perSegment: 153)
        } else {
            self.init(.ucs2, costs: text.unicodeScalars.map { $0.value > 0xFFFF ? 2 : 1 }, single: 70, perSegment: 67)
        }
    }

    /// `costs`: the units of each character, which a segment boundary never splits.
    private init(_ encoding: Encoding, costs: [Int], single: Int, perSegment: Int) {
        self.encoding = encoding
        units = costs.reduce(0, +)
        guard units > single else {
            segments = 1
            return
        }
        var count = 1, used = 0
        for cost in costs {
            if used + cost > perSegment {
                count += 1
                used = 0
            }
            used += cost
        }
        segments = count
    }
}
