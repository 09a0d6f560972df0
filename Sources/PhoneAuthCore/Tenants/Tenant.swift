/// A tenant: a user pool of its own inside the engine (docs/API.md, "Tenants").
package struct Tenant: Sendable, Hashable {
    package var id: TenantID
    /// 4 to 20 letters, digits and hyphens, starting with a letter (Identity Platform's rule).
    package var displayName: String
    package var settings: TenantSettings
    package var createdAt: Timestamp
    package var updatedAt: Timestamp

    package static let displayNameRule =
        "must be 4 to 20 letters, digits and hyphens, starting with a letter"

    package static func isDisplayName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (4...20).contains(bytes.count), ASCII.isLetter(bytes[0]) else { return false }
        return bytes.allSatisfy { ASCII.isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
    }

    package var json: JSONValue {
        var o = JSONObjectBuilder()
        o.set("tenantId", .string(id.text))
        o.set("displayName", .string(displayName))
        for (key, value) in settings.json.objectPairs { o.set(key, value) }
        o.set("createdAt", .string(createdAt.rfc3339))
        o.set("updatedAt", .string(updatedAt.rfc3339))
        return o.value
    }
}
