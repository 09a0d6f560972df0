/// Tokens and sessions: custom tokens, ID tokens, refreshing and ending a session.
extension OperationCatalogue {
    static let tokens: [Operation] = [
        Operation("createCustomToken", scopedByTenant: true, parameters: ["uid", "claims"]) { engine, p in
            return .object([
                (
                    "customToken",
                    .string(
                        try engine.signIn.createCustomToken(
                            uid: try required(p, "uid"), claims: p.value("claims"),
                            tenant: try tenant(engine, p))
                    )
                )
            ])
        },
        Operation("signInWithCustomToken", access: .client, scopedByTenant: true, parameters: ["customToken"]) {
            engine, p in
            guard let token = try p.string("customToken"), !token.isEmpty else {
                throw PhoneAuthError(
                    .invalidCustomToken, "A custom token is required.", details: [("reason", .string("missing"))])
            }
            return ResultJSON.signIn(
                try engine.signIn.signIn(withCustomToken: token, tenant: try tenant(engine, p)))
        },
        Operation("refreshIdToken", access: .client, scopedByTenant: true, parameters: ["refreshToken"]) { engine, p in
            return ResultJSON.refreshed(
                try engine.sessions.refreshIdToken(try required(p, "refreshToken"), tenant: try namedTenant(p)))
        },
        Operation("verifyIdToken", access: .client, scopedByTenant: true, parameters: ["idToken", "checkRevoked"]) {
            engine, p in
            let claims = try engine.sessions.verifyIdToken(
                try required(p, "idToken"), checkRevoked: try p.bool("checkRevoked") ?? false,
                tenant: try namedTenant(p))
            return .object([("claims", claims)])
        },
        Operation("signOut", access: .client, scopedByTenant: true, parameters: ["refreshToken"]) { engine, p in
            try engine.sessions.signOut(
                refreshToken: try required(p, "refreshToken"), tenant: try namedTenant(p))
            return .object([])
        },
    ]
}
