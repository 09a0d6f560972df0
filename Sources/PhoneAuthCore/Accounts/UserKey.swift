/// How a lookup names a user: by uid, or by phone number (E.164), which is unique within a tenant.
package enum UserKey: Sendable {
    case uid(String)
    case phoneNumber(String)
}
