/// Tokens and sessions: custom tokens, ID tokens, refreshing and ending a session.
extension OperationCatalogue {
    static let tokens: [Operation] = [
        Operation("createCustomToken", scopedByTenant: true, parameters: ["uid", "claims"]) { engine, caller, p in
            return .object([
                (
                    "customToken",
                    .string(
                        try engine.signIn.createCustomToken(
                            uid: try required(p, "uid"), claims: p.value("claims"), for: caller)
                    )
                )
            ])
        },
        Operation("signInWithCustomToken", access: .client, scopedByTenant: true, parameters: ["customToken"]) {
            engine, caller, p in
            guard let token = try p.string("customToken"), !token.isEmpty else {
                throw PhoneAuthError(
                    .invalidCustomToken, "A custom token is required.", details: [("reason", .string("missing"))])
            }
            return ResultJSON.signIn(
                try engine.signIn.signIn(withCustomToken: token, for: caller))
        },
        Operation("refreshIdToken", access: .client, scopedByTenant: true, parameters: ["refreshToken"]) {
            engine, caller, p in
            return ResultJSON.refreshed(
                try engine.sessions.refreshIdToken(try required(p, "refreshToken"), for: caller))
        },
        Operation("verifyIdToken", access: .client, scopedByTenant: true, parameters: ["idToken", "checkRevoked"]) {
            engine, caller, p in
            let claims = try engine.sessions.verifyIdToken(
                try required(p, "idToken"), checkRevoked: try p.bool("checkRevoked") ?? false, for: caller)
            return .object([("claims", claims)])
        },
        Operation("signOut", access: .client, scopedByTenant: true, parameters: ["refreshToken"]) { engine, caller, p in
            try engine.sessions.signOut(
                refreshToken: try required(p, "refreshToken"), for: caller)
            return .object([])
        },
    ]
}
