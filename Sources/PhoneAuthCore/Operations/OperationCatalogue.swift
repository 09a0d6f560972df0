/// Every operation of the engine, declared once: its name, who may call it, whether the caller's
/// address is the server's to set, its parameters and how it runs. phoneauth_call, PhoneAuthKit's
/// `call`, phoneauthd's `/phoneauth/v1` route (its access checks and address override) and
/// Firebase routes (through the operation each performs), and the `phoneauth` command are served
/// from this list; `listMethods` describes it to any host (docs/API.md lists the same methods).
enum OperationCatalogue {
    /// In the order listMethods describes them; each group is in a file of its own
    /// (OperationCatalogue+Verification.swift, +Credentials, +MultiFactor, +Tokens, +Users,
    /// +Service, +Tenants, +Pumping, +Passkeys).
    static let all: [Operation] =
        [verification, credentialUses, multiFactor, tokens, users, service, tenants, pumping, passkeys, [listMethods]]
        .flatMap { $0 }

    static let listMethods = Operation("listMethods", access: .client, parameters: []) { _, _, _ in
        .object([("methods", .array(all.map(\.description)))])
    }

    static let byName: [String: Operation] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}
