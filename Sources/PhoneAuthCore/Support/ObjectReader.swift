/// Reads fields of a JSON object strictly: wrong types, unknown keys and out-of-range numbers are
/// errors that name the field. `code` is the error raised (invalidArgument for call parameters,
/// invalidConfiguration for the engine configuration); `path` prefixes nested field names.
package struct ObjectReader {
    private let pairs: [(String, JSONValue)]
    private let code: PhoneAuthError.Code
    private let path: String

    package init(
        _ value: JSONValue?, code: PhoneAuthError.Code = .invalidArgument, path: String = "",
        what: String = "parameters"
    ) throws(PhoneAuthError) {
        self.code = code
        self.path = path
        switch value {
        case nil: pairs = []
        case let .object(p)?: pairs = p
        case let other?:
            let noun = code == .invalidConfiguration ? "key" : "field"
            throw PhoneAuthError(
                code, "The \(path.isEmpty ? what : "\(noun) '\(path)'") must be a JSON object, not \(other.typeName).",
                details: path.isEmpty ? [] : [(noun, .string(path))])
        }
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func fail(_ key: String, _ message: String) -> PhoneAuthError {
        PhoneAuthError(code, message, details: [(code == .invalidConfiguration ? "key" : "field", .string(name(key)))])
    }

    /// Rejects any key not in `known`, naming it if it may be quoted (`Echo`), else by its
    /// position in the object.
    package func rejectUnknown(_ known: Set<String>) throws(PhoneAuthError) {
        guard let index = pairs.firstIndex(where: { !known.contains($0.0) }) else { return }
        let key = pairs[index].0
        let noun = code == .invalidConfiguration ? "configuration key" : "parameter"
        if Echo.isQuotable(key) { throw fail(key, "Unknown \(noun) '\(name(key))'.") }
        let place = path.isEmpty ? "" : " of '\(path)'"
        var details: [(String, JSONValue)] = [("position", .int(Int64(index + 1)))]
        if !path.isEmpty { details.insert((code == .invalidConfiguration ? "key" : "field", .string(path)), at: 0) }
        throw PhoneAuthError(
            code, "An unknown \(noun): the \(Self.ordinal(index + 1)) one\(place) (not shown: it is not a plain name).",
            details: details)
    }

    /// Rejects a field given as null unless it is one of `nullable` (where null means something of
    /// its own): `value` and the typed reads take null as absent, which a caller must say by
    /// leaving the field out.
    package func rejectNull(except nullable: Set<String> = []) throws(PhoneAuthError) {
        guard let (key, _) = pairs.first(where: { $0.1 == .null && !nullable.contains($0.0) }) else { return }
        throw fail(key, "The field '\(name(key))' must not be null; leave it out instead.")
    }

    private static func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }

    package func value(_ key: String) -> JSONValue? {
        guard let v = pairs.first(where: { $0.0 == key })?.1, v != .null else { return nil }
        return v
    }

    package func string(_ key: String) throws(PhoneAuthError) -> String? {
        guard let v = value(key) else { return nil }
        guard case let .string(s) = v else {
            throw fail(key, "The field '\(name(key))' must be a string, not \(v.typeName).")
        }
        return s
    }

    package func bool(_ key: String) throws(PhoneAuthError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard case let .bool(b) = v else {
            throw fail(key, "The field '\(name(key))' must be true or false, not \(v.typeName).")
        }
        return b
    }

    package func int(_ key: String, in range: ClosedRange<Int64>) throws(PhoneAuthError) -> Int64? {
        guard let v = value(key) else { return nil }
        guard case let .int(i) = v else {
            throw fail(key, "The field '\(name(key))' must be an integer, not \(v.typeName).")
        }
        guard range.contains(i) else {
            throw fail(
                key, "The field '\(name(key))' must be between \(range.lowerBound) and \(range.upperBound); it is \(i)."
            )
        }
        return i
    }

    package func object(_ key: String) throws(PhoneAuthError) -> ObjectReader? {
        guard let v = value(key) else { return nil }
        return try ObjectReader(v, code: code, path: name(key))
    }

    /// The error for a field `key` of this object whose value breaks a rule (`problem`: "must …"),
    /// named by its whole path, as a configuration key or a parameter as `code` says.
    package func refusal(_ key: String, _ problem: String) -> PhoneAuthError {
        EngineConfig.bad(name(key), problem, code: code)
    }

    /// The object's own pairs, for maps such as testPhoneNumbers.
    package var entries: [(String, JSONValue)] { pairs }
}
