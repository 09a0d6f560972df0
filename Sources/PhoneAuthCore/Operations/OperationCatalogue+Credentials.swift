/// What a phone credential does: sign in, link the number to a user, change a user's
/// number, reauthenticate; and unlinking the number.
extension OperationCatalogue {
    static let credentialUses: [Operation] = [
        Operation(
            "signInWithCredential", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["credential", "clientIp", "userAgent"]
        ) { engine, p in
            return ResultJSON.signIn(try engine.signIn.signIn(with: try credential(p), in: try pool(engine, p)))
        },
        Operation(
            "linkWithCredential", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["idToken", "credential", "clientIp", "userAgent"]
        ) { engine, p in
            return ResultJSON.signIn(
                try engine.accounts.link(
                    idToken: try required(p, "idToken"), credential: try credential(p),
                    tenant: try namedTenant(p)))
        },
        Operation(
            "updatePhoneNumber", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["idToken", "credential", "clientIp", "userAgent"]
        ) { engine, p in
            return ResultJSON.signIn(
                try engine.accounts.updatePhoneNumber(
                    idToken: try required(p, "idToken"), credential: try credential(p),
                    tenant: try namedTenant(p)))
        },
        Operation(
            "reauthenticateWithCredential", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["idToken", "credential", "clientIp", "userAgent"]
        ) { engine, p in
            return ResultJSON.signIn(
                try engine.accounts.reauthenticate(
                    idToken: try required(p, "idToken"), credential: try credential(p),
                    tenant: try namedTenant(p)))
        },
        Operation("unlink", access: .client, scopedByTenant: true, parameters: ["idToken", "providerId"]) { engine, p in
            return .object([
                (
                    "user",
                    ResultJSON.user(
                        try engine.accounts.unlink(
                            idToken: try required(p, "idToken"), providerId: try required(p, "providerId"),
                            tenant: try namedTenant(p)))
                )
            ])
        },
    ]
}
