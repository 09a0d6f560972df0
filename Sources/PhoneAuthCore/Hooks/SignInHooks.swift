/// Which of beforeCreate and beforeSignIn are installed, as a sign-in's store transaction needs
/// to know: a sign-in they would judge answers `approvalNeeded` rather than opening its session.
package struct SignInHooks: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let beforeCreate = SignInHooks(rawValue: 1)
    package static let beforeSignIn = SignInHooks(rawValue: 2)

    /// Whether a sign-in of an existing user (`isNew` false) or of a new one waits for them.
    func judge(isNew: Bool) -> Bool { contains(.beforeSignIn) || (isNew && contains(.beforeCreate)) }
}
