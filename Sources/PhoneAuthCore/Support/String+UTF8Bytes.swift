extension String {
    /// Calls `body` with the string's own UTF-8 bytes as C characters and their count, for C
    /// functions that take a length (no C string made, no strlen); the pointer is valid even when
    /// the string is empty.
    func withUTF8Bytes<R>(_ body: (UnsafePointer<CChar>, Int) -> R) -> R {
        var text = self
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return "".withCString { body($0, 0) } }
                return body(base, chars.count)
            }
        }
    }
}
