/// Byte classes of the ASCII text the engine checks by hand (identifiers, schemes, hosts).
package enum ASCII {
    package static func isLetter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }
    package static func isDigit(_ byte: UInt8) -> Bool { (48...57).contains(byte) }
    package static func isLetterOrDigit(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) }
}
