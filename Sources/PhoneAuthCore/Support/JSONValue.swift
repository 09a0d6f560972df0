/// A JSON value as the engine sees it: the C ABI converts it to and from text with jansson.
/// Objects keep their keys in insertion order so results print in a stable, readable order.
package enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    package subscript(key: String) -> JSONValue? {
        guard case let .object(pairs) = self else { return nil }
        return pairs.first(where: { $0.0 == key })?.1
    }

    package var stringValue: String? {
        if case let .string(s) = self { return s }
        return nil
    }

    package var intValue: Int64? {
        if case let .int(i) = self { return i }
        return nil
    }

    /// A number as a Double (an integer too).
    package var doubleValue: Double? {
        switch self {
        case let .double(d): return d
        case let .int(i): return Double(i)
        default: return nil
        }
    }

    package var arrayValue: [JSONValue]? {
        if case let .array(a) = self { return a }
        return nil
    }

    package var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// An object's members in order; none for any other value.
    package var objectPairs: [(String, JSONValue)] {
        if case let .object(pairs) = self { return pairs }
        return []
    }

    /// The name of this value's JSON type, for error messages.
    package var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

/// Builds JSON objects with optional fields left out.
package struct JSONObjectBuilder {
    package private(set) var pairs: [(String, JSONValue)] = []
    package init() {}
    package mutating func set(_ key: String, _ value: JSONValue?) {
        if let value { pairs.append((key, value)) }
    }
    package var value: JSONValue { .object(pairs) }
}
