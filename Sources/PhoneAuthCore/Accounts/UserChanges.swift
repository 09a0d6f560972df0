/// What updateUser changes: nil leaves a field; `.some(nil)` clears an optional one.
package struct UserChanges: Sendable {
    package var disabled: Bool?
    package var displayName: String??
    package var phoneNumber: String??
    package var customClaims: String??

    package init(
        disabled: Bool? = nil, displayName: String?? = nil, phoneNumber: String?? = nil, customClaims: String?? = nil
    ) {
        self.disabled = disabled
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.customClaims = customClaims
    }
}
