/// What a phone credential does: sign in, link the number to a user, change a user's
/// number, reauthenticate; and unlinking the number.
extension OperationCatalogue {
    static let credentialUses: [Operation] = [
        Operation(
            "signInWithCredential", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["credential", "clientIp", "userAgent"]
        ) { engine, caller, p in
            return ResultJSON.signIn(try engine.signIn.signIn(with: try credential(p), for: caller))
        },
        Operation(
            "linkWithCredential", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["idToken", "credential", "clientIp", "userAgent"]
        ) { engine, caller, p in
            return ResultJSON.signIn(
                try engine.accounts.link(
                    idToken: try required(p, "idToken"), credential: try credential(p), for: caller))
        },
        Operation(
            "updatePhoneNumber", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["idToken", "credential", "clientIp", "userAgent"]
        ) { engine, caller, p in
            return ResultJSON.signIn(
                try engine.accounts.updatePhoneNumber(
                    idToken: try required(p, "idToken"), credential: try credential(p), for: caller))
        },
        Operation(
            "reauthenticateWithCredential", access: .client, setsClientIp: true,
            scopedByTenant: true, parameters: ["idToken", "credential", "clientIp", "userAgent"]
        ) { engine, caller, p in
            return ResultJSON.signIn(
                try engine.accounts.reauthenticate(
                    idToken: try required(p, "idToken"), credential: try credential(p), for: caller))
        },
        Operation("unlink", access: .client, scopedByTenant: true, parameters: ["idToken", "providerId"]) {
            engine, caller, p in
            return .object([
                (
                    "user",
                    try engine.accounts.unlink(
                        idToken: try required(p, "idToken"), providerId: try required(p, "providerId"), for: caller
                    ).json
                )
            ])
        },
    ]
}
