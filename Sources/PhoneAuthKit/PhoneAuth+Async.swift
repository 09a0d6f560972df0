/// The `async` variants: each runs its synchronous twin on a Dispatch queue and suspends the
/// caller meanwhile, so no executor of the caller's is blocked on the database.
extension PhoneAuth {
    /// `async`: `verifyPhoneNumber` run on a Dispatch queue, the caller suspended meanwhile.
    public func verifyPhoneNumber(
        _ phoneNumber: String, languageCode: String? = nil, clientIP: String? = nil, userAgent: String? = nil,
        appVerification: AppVerification? = nil, channel: DeliveryChannel? = nil
    ) async throws(PhoneAuthError) -> Verification {
        try await offload { () throws(PhoneAuthError) in
            try self.verifyPhoneNumber(
                phoneNumber, languageCode: languageCode, clientIP: clientIP, userAgent: userAgent,
                appVerification: appVerification,
                channel: channel)
        }
    }

    /// `async`: `signIn` run on a Dispatch queue, the caller suspended meanwhile.
    public func signIn(
        with credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in
            try self.signIn(with: credential, clientIP: clientIP, userAgent: userAgent)
        }
    }

    /// `async`: `startPhoneEnrollment` run on a Dispatch queue, the caller suspended meanwhile.
    public func startPhoneEnrollment(
        idToken: String, phoneNumber: String, languageCode: String? = nil, clientIP: String? = nil,
        userAgent: String? = nil,
        appVerification: AppVerification? = nil, channel: DeliveryChannel? = nil
    ) async throws(PhoneAuthError) -> Verification {
        try await offload { () throws(PhoneAuthError) in
            try self.startPhoneEnrollment(
                idToken: idToken, phoneNumber: phoneNumber, languageCode: languageCode, clientIP: clientIP,
                userAgent: userAgent,
                appVerification: appVerification, channel: channel)
        }
    }

    /// `async`: `finishPhoneEnrollment` run on a Dispatch queue, the caller suspended meanwhile.
    public func finishPhoneEnrollment(
        idToken: String, credential: PhoneCredential, displayName: String? = nil,
        clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in
            try self.finishPhoneEnrollment(
                idToken: idToken, credential: credential, displayName: displayName, clientIP: clientIP,
                userAgent: userAgent)
        }
    }

    /// `async`: `unenroll` run on a Dispatch queue, the caller suspended meanwhile.
    public func unenroll(idToken: String, enrollmentID: String) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in try self.unenroll(idToken: idToken, enrollmentID: enrollmentID)
        }
    }

    /// `async`: `sendSecondFactorCode` run on a Dispatch queue, the caller suspended meanwhile.
    public func sendSecondFactorCode(
        session: String, enrollmentID: String, languageCode: String? = nil, clientIP: String? = nil,
        userAgent: String? = nil,
        appVerification: AppVerification? = nil, channel: DeliveryChannel? = nil
    ) async throws(PhoneAuthError) -> Verification {
        try await offload { () throws(PhoneAuthError) in
            try self.sendSecondFactorCode(
                session: session, enrollmentID: enrollmentID, languageCode: languageCode, clientIP: clientIP,
                userAgent: userAgent,
                appVerification: appVerification, channel: channel)
        }
    }

    /// `async`: `resolveSignIn` run on a Dispatch queue, the caller suspended meanwhile.
    public func resolveSignIn(
        session: String, credential: PhoneCredential, clientIP: String? = nil, userAgent: String? = nil
    ) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in
            try self.resolveSignIn(session: session, credential: credential, clientIP: clientIP, userAgent: userAgent)
        }
    }

    /// `async`: `verifyIDToken` run on a Dispatch queue, the caller suspended meanwhile.
    public func verifyIDToken(_ idToken: String, checkRevoked: Bool = false) async throws(PhoneAuthError) -> IDToken {
        try await offload { () throws(PhoneAuthError) in try self.verifyIDToken(idToken, checkRevoked: checkRevoked) }
    }

    /// `async`: `refreshIDToken` run on a Dispatch queue, the caller suspended meanwhile.
    public func refreshIDToken(_ refreshToken: String) async throws(PhoneAuthError) -> SignInResult {
        try await offload { () throws(PhoneAuthError) in try self.refreshIDToken(refreshToken) }
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
    public func createUser(
        uid: String? = nil, phoneNumber: String? = nil, displayName: String? = nil,
        disabled: Bool = false
    ) async throws(PhoneAuthError) -> User {
        try await offload { () throws(PhoneAuthError) in
            try self.createUser(uid: uid, phoneNumber: phoneNumber, displayName: displayName, disabled: disabled)
        }
    }

    /// `async`: `updateUser` run on a Dispatch queue, the caller suspended meanwhile.
    public func updateUser(
        uid: String, disabled: Bool? = nil, displayName: String?? = nil, phoneNumber: String?? = nil,
        customClaimsJSON: String?? = nil
    ) async throws(PhoneAuthError) -> User {
        try await offload { () throws(PhoneAuthError) in
            try self.updateUser(
                uid: uid, disabled: disabled, displayName: displayName, phoneNumber: phoneNumber,
                customClaimsJSON: customClaimsJSON)
        }
    }

    /// `async`: `eventBacklog` run on a Dispatch queue, the caller suspended meanwhile.
    public func eventBacklog() async throws(PhoneAuthError) -> (count: Int, oldestAgeSeconds: Int?) {
        try await offload { () throws(PhoneAuthError) in try self.eventBacklog() }
    }

    /// `async`: `deleteUser` run on a Dispatch queue, the caller suspended meanwhile.
    public func deleteUser(uid: String) async throws(PhoneAuthError) {
        try await offload { () throws(PhoneAuthError) in try self.deleteUser(uid: uid) }
    }

    /// `async`: `setCustomUserClaims` run on a Dispatch queue, the caller suspended meanwhile.
    public func setCustomUserClaims(uid: String, claimsJSON: String?) async throws(PhoneAuthError) {
        try await offload { () throws(PhoneAuthError) in try self.setCustomUserClaims(uid: uid, claimsJSON: claimsJSON)
        }
    }

    /// `async`: `listUsers` run on a Dispatch queue, the caller suspended meanwhile.
    public func listUsers(
        maxResults: Int = 1000, pageToken: String? = nil
    ) async throws(PhoneAuthError) -> (users: [User], nextPageToken: String?) {
        try await offload { () throws(PhoneAuthError) in
            try self.listUsers(maxResults: maxResults, pageToken: pageToken)
        }
    }

    /// `async`: `createCustomToken` run on a Dispatch queue, the caller suspended meanwhile.
    public func createCustomToken(uid: String, claimsJSON: String? = nil) async throws(PhoneAuthError) -> String {
        try await offload { () throws(PhoneAuthError) in try self.createCustomToken(uid: uid, claimsJSON: claimsJSON) }
    }

    /// `async`: `verifyClient` run on a Dispatch queue, the caller suspended meanwhile.
    public func verifyClient(
        appToken: String, tokenType: String = "unknown",
        clientIP: String? = nil
    ) async throws(PhoneAuthError) -> (receipt: String, suggestedTimeoutSeconds: Int) {
        try await offload { () throws(PhoneAuthError) in
            try self.verifyClient(appToken: appToken, tokenType: tokenType, clientIP: clientIP)
        }
    }

    /// `async`: `call` run on a Dispatch queue, the caller suspended meanwhile.
    public func call(_ method: String, paramsJSON: String) async -> (status: Int32, json: String) {
        await offload { self.call(method, paramsJSON: paramsJSON) }
    }

    /// `async`: `createTenant` run on a Dispatch queue, the caller suspended meanwhile.
    public func createTenant(id: String? = nil, _ changes: TenantChanges) async throws(PhoneAuthError) -> Tenant {
        try await offload { () throws(PhoneAuthError) in try self.createTenant(id: id, changes) }
    }

    /// `async`: `getTenant` run on a Dispatch queue, the caller suspended meanwhile.
    public func getTenant(_ id: String) async throws(PhoneAuthError) -> Tenant {
        try await offload { () throws(PhoneAuthError) in try self.getTenant(id) }
    }

    /// `async`: `updateTenant` run on a Dispatch queue, the caller suspended meanwhile.
    public func updateTenant(_ id: String, _ changes: TenantChanges) async throws(PhoneAuthError) -> Tenant {
        try await offload { () throws(PhoneAuthError) in try self.updateTenant(id, changes) }
    }

    /// `async`: `deleteTenant` run on a Dispatch queue, the caller suspended meanwhile.
    public func deleteTenant(_ id: String) async throws(PhoneAuthError) {
        try await offload { () throws(PhoneAuthError) in try self.deleteTenant(id) }
    }

    /// `async`: `listTenants` run on a Dispatch queue, the caller suspended meanwhile.
    public func listTenants(
        maxResults: Int = 100, pageToken: String? = nil
    ) async throws(PhoneAuthError) -> (tenants: [Tenant], nextPageToken: String?) {
        try await offload { () throws(PhoneAuthError) in
            try self.listTenants(maxResults: maxResults, pageToken: pageToken)
        }
    }
}
