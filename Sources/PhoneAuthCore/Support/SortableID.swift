/// Identifiers that sort by creation time: 12 hex digits of milliseconds since the epoch, then
/// random bytes in base64url. Rows keyed by them go to the right edge of their B-tree, which
/// stays in cache, instead of to a random page of a large file.
enum SortableID {
    static func make(at time: Timestamp, randomBytes: Int) -> String {
        prefix(time) + Base64URL.encode(SecureBytes.random(count: randomBytes))
    }

    /// The time part: every identifier made before `time` sorts below it.
    static func prefix(_ time: Timestamp) -> String {
        let hex = String(UInt64(max(0, time.milliseconds)), radix: 16)
        return String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }

    static func isWellFormed(_ id: String, randomBytes: Int) -> Bool {
        let randomLength = (randomBytes * 4 + 2) / 3
        guard id.utf8.count == 12 + randomLength else { return false }
        let time = id.utf8.prefix(12)
        return time.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
            && Base64URL.decode(id.dropFirst(12)) != nil
    }
}
