/// Managing users (the admin SDK's calls): reading, changing, listing, importing and exporting
/// them, revoking their sessions, and unlocking a number.
extension OperationCatalogue {
    static let users: [Operation] = [
        Operation("getUser", scopedByTenant: true, parameters: ["uid"]) { engine, caller, p in
            return .object([
                (
                    "user",
                    try engine.accounts.user(uid: try required(p, "uid"), for: caller).json
                )
            ])
        },
        Operation("getUserByPhoneNumber", scopedByTenant: true, parameters: ["phoneNumber"]) { engine, caller, p in
            guard let phone = try p.string("phoneNumber"), !phone.isEmpty else {
                throw PhoneAuthError(.missingPhoneNumber, "A phone number is required.")
            }
            return .object([
                ("user", try engine.accounts.user(phoneNumber: phone, for: caller).json)
            ])
        },
        Operation("deleteUser", scopedByTenant: true, parameters: ["uid"]) { engine, caller, p in
            try engine.accounts.deleteUser(uid: try required(p, "uid"), for: caller)
            return .object([])
        },
        Operation(
            "updateUser", scopedByTenant: true, parameters: ["uid", "disabled", "displayName", "phoneNumber"],
            nullable: ["displayName", "phoneNumber"]
        ) { engine, caller, p in
            let uid = try required(p, "uid")
            let displayName = try clearable(p, "displayName").map { name throws(PhoneAuthError) in
                try Label(name, field: "displayName")
            }
            let user = try engine.accounts.updateUser(
                uid: uid, for: caller, disabled: try p.bool("disabled"), displayName: displayName,
                phoneNumber: try clearable(p, "phoneNumber"))
            return .object([("user", user.json)])
        },
        Operation("createUser", scopedByTenant: true, parameters: ["uid", "disabled", "displayName", "phoneNumber"]) {
            engine, caller, p in
            let uid = try p.string("uid")
            let user = try engine.accounts.createUser(
                uid: uid, for: caller, disabled: try p.bool("disabled") ?? false,
                displayName: try Label(p.string("displayName"), field: "displayName"),
                phoneNumber: try p.string("phoneNumber"))
            return .object([("user", user.json)])
        },
        Operation("setCustomUserClaims", scopedByTenant: true, parameters: ["uid", "claims"], nullable: ["claims"]) {
            engine, caller, p in
            try engine.accounts.setCustomUserClaims(
                uid: try required(p, "uid"), for: caller, claims: p.value("claims"))
            return .object([])
        },
        Operation("listUsers", scopedByTenant: true, parameters: ["maxResults", "pageToken"]) { engine, caller, p in
            let page = try engine.accounts.listUsers(
                for: caller, maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 1000),
                pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("users", .array(page.users.map(\.json)))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        Operation("searchUsers", scopedByTenant: true, parameters: ["query", "maxResults", "pageToken"]) {
            engine, caller, p in
            let page = try engine.accounts.searchUsers(
                query: try p.string("query"), for: caller,
                maxResults: Int(try p.int("maxResults", in: 1...100) ?? 20), pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("users", .array(page.users.map(\.json)))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        Operation("listSessions", scopedByTenant: true, parameters: ["uid"]) { engine, caller, p in
            let sessions = try engine.sessions.liveSessions(uid: try required(p, "uid"), for: caller)
            return .object([("sessions", .array(sessions.map(\.json)))])
        },
        Operation("exportUsers", scopedByTenant: true, parameters: ["maxResults", "pageToken"]) { engine, caller, p in
            let page = try engine.transfer.exportUsers(
                for: caller, maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 1000),
                pageToken: try p.string("pageToken"))
            var result = JSONObjectBuilder()
            result.set("users", .array(page.users))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        Operation("importUsers", scopedByTenant: true, parameters: ["users"]) { engine, caller, p in
            guard case let .array(users)? = p.value("users") else {
                throw PhoneAuthError(
                    .invalidArgument, "The field 'users' (an array of users as auth:export writes them) is required.",
                    details: [("field", .string("users"))])
            }
            let outcome = try engine.transfer.importUsers(users, for: caller)
            return .object([
                ("imported", .int(Int64(outcome.imported))),
                (
                    "errors",
                    .array(
                        outcome.errors.map {
                            .object([("index", .int(Int64($0.index))), ("message", .string($0.message))])
                        })
                ),
            ])
        },
        Operation("revokeRefreshTokens", scopedByTenant: true, parameters: ["uid"]) { engine, caller, p in
            try engine.sessions.revokeRefreshTokens(uid: try required(p, "uid"), for: caller)
            return .object([])
        },
        Operation("unlockPhoneNumber", parameters: ["phoneNumber"]) { engine, caller, p in
            return .object([("unlocked", .bool(try engine.lockouts.unlockPhoneNumber(try p.string("phoneNumber"))))])
        },
    ]
}
