/// Passkeys after phone sign-in: enrolment by a signed-in user, sign-in with one, and the
/// user's list (docs/API.md, "Passkeys"). The ceremonies' options and responses are WebAuthn's
/// own JSON, as the browser's PublicKeyCredential methods take and give them.
extension OperationCatalogue {
    static let passkeys: [Operation] = [
        Operation(
            "startPasskeyEnrollment", access: .client, setsClientIp: true, scopedByTenant: true,
            parameters: ["idToken", "clientIp", "userAgent"]
        ) { engine, caller, p in
            .object([
                ("options", try engine.passkeys.startEnrollment(idToken: try required(p, "idToken"), for: caller))
            ])
        },
        Operation(
            "finishPasskeyEnrollment", access: .client, scopedByTenant: true,
            parameters: ["idToken", "credential", "name"]
        ) { engine, caller, p in
            let name = try Label(try p.string("name"), field: "name")
            let (passkey, tokens) = try engine.passkeys.finishEnrollment(
                idToken: try required(p, "idToken"),
                response: try PasskeyResponse.read(p.value("credential"), field: "credential", ceremony: .create),
                name: name, for: caller)
            return .object([("passkey", .object(passkey.fields))] + ResultJSON.signIn(tokens).objectPairs)
        },
        Operation(
            "startPasskeySignIn", access: .client, setsClientIp: true, scopedByTenant: true,
            parameters: ["uid", "phoneNumber", "clientIp", "userAgent"]
        ) { engine, caller, p in
            .object([
                (
                    "options",
                    try engine.passkeys.startSignIn(
                        uid: try p.string("uid"), phoneNumber: try p.string("phoneNumber"), for: caller)
                )
            ])
        },
        Operation(
            "finishPasskeySignIn", access: .client, setsClientIp: true, scopedByTenant: true,
            parameters: ["credential", "clientIp", "userAgent"]
        ) { engine, caller, p in
            ResultJSON.signIn(
                try engine.passkeys.finishSignIn(
                    response: try PasskeyResponse.read(p.value("credential"), field: "credential", ceremony: .get),
                    for: caller))
        },
        Operation("listPasskeys", access: .client, scopedByTenant: true, parameters: ["idToken"]) {
            engine, caller, p in
            .object([
                (
                    "passkeys",
                    .array(
                        try engine.passkeys.passkeys(idToken: try required(p, "idToken"), for: caller).map {
                            .object($0.fields)
                        })
                )
            ])
        },
        Operation("deletePasskey", access: .client, scopedByTenant: true, parameters: ["idToken", "credentialId"]) {
            engine, caller, p in
            try engine.passkeys.remove(
                credentialId: try required(p, "credentialId"), idToken: try required(p, "idToken"), for: caller)
            return .object([])
        },
    ]
}
