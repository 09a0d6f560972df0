/// The `async` variants: each runs its synchronous twin on a Dispatch queue and suspends the
/// caller meanwhile, so no executor of the caller's is blocked on the database.
extension PhoneAuth {
    /// `async`: `verifyPhoneNumber` run on a Dispatch queue, the caller suspended meanwhile.
    public func verifyPhoneNumber(_ phoneNumber: String, languageCode: String? = nil, clientIp: String? = nil,
                                  appVerification: AppVerification? = nil) async throws(PhoneAuthError) -> Verification {
        try await offload { () throws(PhoneAuthError) in
            try self.verifyPhoneNumber(phoneNumber, languageCode: languageCode, clientIp: clientIp, appVerification: appVerification)
        }
    }

    /// `async`: `signIn` run on a Dispatch queue, the caller suspended meanwhile.
    public func signIn(with credential: PhoneCredential, clientIp: String? = nil) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in try self.signIn(with: credential, clientIp: clientIp) }
    }

    /// `async`: `startPhoneEnrollment` run on a Dispatch queue, the caller suspended meanwhile.
    public func startPhoneEnrollment(idToken: String, phoneNumber: String, languageCode: String? = nil, clientIp: String? = nil,
                                     appVerification: AppVerification? = nil) async throws(PhoneAuthError) -> Verification {
        try await offload { () throws(PhoneAuthError) in
            try self.startPhoneEnrollment(idToken: idToken, phoneNumber: phoneNumber, languageCode: languageCode, clientIp: clientIp,
                                          appVerification: appVerification)
        }
    }

    /// `async`: `finishPhoneEnrollment` run on a Dispatch queue, the caller suspended meanwhile.
    public func finishPhoneEnrollment(idToken: String, credential: PhoneCredential, displayName: String? = nil) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in try self.finishPhoneEnrollment(idToken: idToken, credential: credential, displayName: displayName) }
    }

    /// `async`: `unenroll` run on a Dispatch queue, the caller suspended meanwhile.
    public func unenroll(idToken: String, enrollmentId: String) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in try self.unenroll(idToken: idToken, enrollmentId: enrollmentId) }
    }

    /// `async`: `sendSecondFactorCode` run on a Dispatch queue, the caller suspended meanwhile.
    public func sendSecondFactorCode(session: String, enrollmentId: String, languageCode: String? = nil, clientIp: String? = nil,
                                     appVerification: AppVerification? = nil) async throws(PhoneAuthError) -> Verification {
        try await offload { () throws(PhoneAuthError) in
            try self.sendSecondFactorCode(session: session, enrollmentId: enrollmentId, languageCode: languageCode, clientIp: clientIp,
                                          appVerification: appVerification)
        }
    }

    /// `async`: `resolveSignIn` run on a Dispatch queue, the caller suspended meanwhile.
    public func resolveSignIn(session: String, credential: PhoneCredential, clientIp: String? = nil) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in try self.resolveSignIn(session: session, credential: credential, clientIp: clientIp) }
    }

    /// `async`: `verifyIdToken` run on a Dispatch queue, the caller suspended meanwhile.
    public func verifyIdToken(_ idToken: String, checkRevoked: Bool = false) async throws(PhoneAuthError) -> IDToken {
        try await offload { () throws(PhoneAuthError) in try self.verifyIdToken(idToken, checkRevoked: checkRevoked) }
    }

    /// `async`: `refreshIdToken` run on a Dispatch queue, the caller suspended meanwhile.
    public func refreshIdToken(_ refreshToken: String) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in try self.refreshIdToken(refreshToken) }
    }

    /// `async`: `signOut` run on a Dispatch queue, the caller suspended meanwhile.
    public func signOut(refreshToken: String) async throws(PhoneAuthError) {
        try await offload { () throws(PhoneAuthError) in try self.signOut(refreshToken: refreshToken) }
    }

    /// `async`: `revokeRefreshTokens` run on a Dispatch queue, the caller suspended meanwhile.
    public func revokeRefreshTokens(uid: String) async throws(PhoneAuthError) {
        try await offload { () throws(PhoneAuthError) in try self.revokeRefreshTokens(uid: uid) }
    }

    /// `async`: `user` run on a Dispatch queue, the caller suspended meanwhile.
    public func user(uid: String) async throws(PhoneAuthError) -> User {
        try await offload { () throws(PhoneAuthError) in try self.user(uid: uid) }
    }

    /// `async`: `user` run on a Dispatch queue, the caller suspended meanwhile.
    public func user(phoneNumber: String) async throws(PhoneAuthError) -> User {
        try await offload { () throws(PhoneAuthError) in try self.user(phoneNumber: phoneNumber) }
    }

    /// `async`: `createUser` run on a Dispatch queue, the caller suspended meanwhile.
    public func createUser(uid: String? = nil, phoneNumber: String? = nil, displayName: String? = nil,
                           disabled: Bool = false) async throws(PhoneAuthError) -> User {
        try await offload { () throws(PhoneAuthError) in try self.createUser(uid: uid, phoneNumber: phoneNumber, displayName: displayName, disabled: disabled) }
    }

    /// `async`: `updateUser` run on a Dispatch queue, the caller suspended meanwhile.
    public func updateUser(uid: String, disabled: Bool? = nil, displayName: String?? = nil) async throws(PhoneAuthError) -> User {
        try await offload { () throws(PhoneAuthError) in try self.updateUser(uid: uid, disabled: disabled, displayName: displayName) }
    }

    /// `async`: `deleteUser` run on a Dispatch queue, the caller suspended meanwhile.
    public func deleteUser(uid: String) async throws(PhoneAuthError) {
        try await offload { () throws(PhoneAuthError) in try self.deleteUser(uid: uid) }
    }

    /// `async`: `setCustomUserClaims` run on a Dispatch queue, the caller suspended meanwhile.
    public func setCustomUserClaims(uid: String, claimsJSON: String?) async throws(PhoneAuthError) {
        try await offload { () throws(PhoneAuthError) in try self.setCustomUserClaims(uid: uid, claimsJSON: claimsJSON) }
    }

    /// `async`: `listUsers` run on a Dispatch queue, the caller suspended meanwhile.
    public func listUsers(maxResults: Int = 1000, pageToken: String? = nil) async throws(PhoneAuthError) -> (users: [User], nextPageToken: String?) {
        try await offload { () throws(PhoneAuthError) in try self.listUsers(maxResults: maxResults, pageToken: pageToken) }
    }

    /// `async`: `createCustomToken` run on a Dispatch queue, the caller suspended meanwhile.
    public func createCustomToken(uid: String, claimsJSON: String? = nil) async throws(PhoneAuthError) -> String {
        try await offload { () throws(PhoneAuthError) in try self.createCustomToken(uid: uid, claimsJSON: claimsJSON) }
    }

    /// `async`: `verifyClient` run on a Dispatch queue, the caller suspended meanwhile.
    public func verifyClient(appToken: String, tokenType: String = "unknown",
                             clientIp: String? = nil) async throws(PhoneAuthError) -> (receipt: String, suggestedTimeoutSeconds: Int) {
        try await offload { () throws(PhoneAuthError) in try self.verifyClient(appToken: appToken, tokenType: tokenType, clientIp: clientIp) }
    }

    /// `async`: `call` run on a Dispatch queue, the caller suspended meanwhile.
    public func call(_ method: String, paramsJSON: String) async -> (status: Int32, json: String) {
        await offload { self.call(method, paramsJSON: paramsJSON) }
    }
}
