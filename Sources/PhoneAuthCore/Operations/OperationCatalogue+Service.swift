/// Running the service: signing keys, pending events, status and storage, and the
/// deliveries (a verification's, a provider's receipts).
extension OperationCatalogue {
    static let service: [Operation] = [
        Operation("getJwks", access: .client, parameters: []) { engine, caller, p in
            return engine.keyService.jwks
        },
        Operation("listPendingEvents", parameters: ["maxResults", "pageToken", "subject"]) { engine, caller, p in
            let page = try engine.outbox.list(
                maxResults: Int(try p.int("maxResults", in: 1...1000) ?? 100), pageToken: try p.string("pageToken"),
                subject: try p.string("subject"))
            var result = JSONObjectBuilder()
            result.set("events", .array(page.events.map(ResultJSON.waitingEvent)))
            result.set("pageToken", page.nextPageToken.map { .string($0) })
            return result.value
        },
        Operation("dropPendingEvent", parameters: ["eventId"]) { engine, caller, p in
            try engine.outbox.drop(eventId: try p.string("eventId"))
            return .object([])
        },
        Operation("getStatus", parameters: []) { engine, _, _ in
            ResultJSON.status(try engine.status())
        },
        Operation("listSigningKeys", parameters: []) { engine, _, _ in
            .object([("keys", ResultJSON.signingKeys(engine.keyService.signingKeys()))])
        },
        Operation("rotateSigningKey", parameters: ["algorithm"]) { engine, caller, p in
            .object([
                (
                    "keys",
                    ResultJSON.signingKeys(try engine.keyService.rotateSigningKey(algorithm: try p.string("algorithm")))
                )
            ])
        },
        Operation("retireSigningKey", parameters: ["kid"]) { engine, caller, p in
            .object([
                ("keys", ResultJSON.signingKeys(try engine.keyService.retireSigningKey(kid: try required(p, "kid"))))
            ])
        },
        Operation("rekey", access: .library, parameters: ["newMasterKey"]) { engine, caller, p in
            let keyFile = try engine.keyService.rekey(newMasterKey: try required(p, "newMasterKey"))
            var result = JSONObjectBuilder()
            result.set("rekeyed", .bool(true))
            result.set("keyFile", keyFile.map { .string($0) })
            return result.value
        },
        Operation("getStorageStatistics", parameters: []) { engine, caller, p in
            let s = engine.storageStatistics()
            return .object([
                ("driver", .string(s.driver)), ("poolSize", .int(Int64(s.poolSize))),
                ("transactions", .int(Int64(s.transactions))), ("retries", .int(Int64(s.retries))),
                ("roundTrips", .int(Int64(s.roundTrips))), ("busyMicroseconds", .int(s.busyMicroseconds)),
                ("waits", .int(Int64(s.waits))),
            ])
        },
        Operation("getVerificationStatus", scopedByTenant: true, parameters: ["verificationId"]) { engine, caller, p in
            guard let id = try p.string("verificationId"), !id.isEmpty else {
                throw PhoneAuthError(.missingVerificationID, "A verification ID is required.")
            }
            return ResultJSON.verificationStatus(
                try engine.verification.verificationStatus(id, for: caller))
        },
        Operation("reportDelivery", parameters: ["provider", "url", "headers", "body"]) { engine, caller, p in
            let applied = try engine.receipts.reportDelivery(provider: try p.string("provider"), ReceiptRequest.read(p))
            return .object([("receipts", .array(applied.map(ResultJSON.receipt)))])
        },
        Operation("confirmReceiptSubscription", parameters: ["provider", "url"]) { engine, caller, p in
            .object([
                (
                    "challenge",
                    .string(
                        try engine.receipts.confirmSubscription(provider: p.string("provider"), url: p.string("url")))
                )
            ])
        },
    ]
}
