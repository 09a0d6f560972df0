import Foundation
import PhoneAuthKit
import XCTest

/// The typed tenant methods (`createTenant` … `listTenants`, `TenantChanges`): what they make and
/// change, and the same refusals as the JSON methods, word for word.
final class TenantAPITests: KitTestCase {
    func testTenantsAreMadeChangedListedAndDeleted() async throws {
        let auth = try open()
        let pumping = PumpingSettings(
            mode: .record, allowNetworks: ["198.51.100.0/24"],
            tollFraud: TollFraudSettings(
                phoneEnforcementState: .audit, useSmsTollFraudProtection: true, blockingStartScores: [0.8]))
        let made = try await auth.createTenant(
            id: "acme",
            TenantChanges(
                displayName: "Acme-Shop", testPhoneNumbers: ["+1 650-555-1234": "222222"],
                smsRegionPolicy: .allowlistOnly(allowedRegions: ["US", "CA"]), secondFactors: [.totp],
                smsAppName: "Acme", pumping: pumping))
        XCTAssertEqual(made.tenantID, "acme")
        XCTAssertEqual(made.displayName, "Acme-Shop")
        XCTAssertEqual(made.testPhoneNumbers, [testNumber: "222222"], "numbers are kept in E.164")
        XCTAssertEqual(made.smsRegionPolicy, .allowlistOnly(allowedRegions: ["CA", "US"]))
        XCTAssertEqual(made.secondFactors, [.totp])
        XCTAssertEqual(made.smsAppName, "Acme")
        XCTAssertEqual(made.pumping, pumping)
        XCTAssertEqual(made.createdAt, made.updatedAt)
        let fetched = try await auth.getTenant("acme")
        XCTAssertEqual(fetched, made)

        // The tenant's own test number signs in through its view.
        let verification = try await auth.tenant("acme").verifyPhoneNumber(testNumber)
        let session = try await auth.tenant("acme").signIn(
            with: try PhoneAuth.credential(verificationID: verification.verificationID, verificationCode: "222222"))
        XCTAssertEqual(session.user.tenantID, "acme")

        // nil keeps a field; .some(nil) and [:] clear one.
        let changed = try await auth.updateTenant(
            "acme",
            TenantChanges(testPhoneNumbers: [:], secondFactors: .some(nil), smsAppName: .some(nil), pumping: .some(nil))
        )
        XCTAssertEqual(changed.displayName, "Acme-Shop")
        XCTAssertEqual(changed.smsRegionPolicy, made.smsRegionPolicy)
        XCTAssertEqual(changed.testPhoneNumbers, [:])
        XCTAssertNil(changed.secondFactors)
        XCTAssertNil(changed.smsAppName)
        XCTAssertNil(changed.pumping)

        let generated = try await auth.createTenant(TenantChanges(displayName: "Beta"))
        XCTAssertTrue(generated.tenantID.hasPrefix("beta-"), generated.tenantID)
        XCTAssertNil(generated.smsRegionPolicy)
        XCTAssertNil(generated.secondFactors, "every kind, as the default pool")
        let first = try await auth.listTenants(maxResults: 1)
        XCTAssertEqual(first.tenants.map(\.tenantID), ["acme"])
        let second = try await auth.listTenants(maxResults: 1, pageToken: first.nextPageToken)
        XCTAssertEqual(second.tenants.map(\.tenantID), [generated.tenantID])
        XCTAssertNil(second.nextPageToken)

        await assertThrows(.tenantNotEmpty) { try await auth.deleteTenant("acme") }
        try await auth.tenant("acme").deleteUser(uid: session.user.uid)
        try await auth.deleteTenant("acme")
        await assertThrows(.tenantNotFound) { _ = try await auth.getTenant("acme") }
    }

    /// Each typed input refused as the JSON method refuses the same input: code, message, details.
    func testABadInputIsRefusedAsTheJSONMethodRefusesIt() async throws {
        let auth = try open()
        let cases: [(TenantChanges, String)] = [
            (TenantChanges(displayName: "ab"), #"{"displayName": "ab"}"#),
            (TenantChanges(), "{}"),
            (
                TenantChanges(displayName: "Acme", testPhoneNumbers: [testNumber: "12345"]),
                #"{"displayName": "Acme", "testPhoneNumbers": {"+16505551234": "12345"}}"#
            ),
            (
                TenantChanges(displayName: "Acme", smsRegionPolicy: .allowByDefault(disallowedRegions: ["QQ"])),
                #"{"displayName": "Acme", "smsRegionPolicy": {"allowByDefault": {"disallowedRegions": ["QQ"]}}}"#
            ),
            (
                TenantChanges(displayName: "Acme", smsRegionPolicy: .allowlistOnly(allowedRegions: [])),
                #"{"displayName": "Acme", "smsRegionPolicy": {"allowlistOnly": {"allowedRegions": []}}}"#
            ),
            (
                TenantChanges(displayName: "Acme", smsAppName: "\u{7}"),
                #"{"displayName": "Acme", "smsAppName": "\u0007"}"#
            ),
            (
                TenantChanges(displayName: "Acme", pumping: PumpingSettings(allowPrefixes: ["44"])),
                #"{"displayName": "Acme", "pumping": {"allowPrefixes": ["44"]}}"#
            ),
            (
                TenantChanges(
                    displayName: "Acme",
                    pumping: PumpingSettings(tollFraud: TollFraudSettings(blockingStartScores: [1.5]))),
                #"{"displayName": "Acme", "pumping": {"tollFraud": {"phoneEnforcementState": "OFF", "#
                    + #""useSmsTollFraudProtection": false, "#
                    + #""tollFraudManagedRules": [{"startScore": 1.5, "action": "BLOCK"}]}}}"#
            ),
        ]
        for (changes, json) in cases {
            let answer = await auth.call("createTenant", paramsJSON: json)
            let expected =
                try XCTUnwrap(
                    try JSONSerialization.jsonObject(with: Data(answer.json.utf8)) as? [String: Any])["error"]
                as? [String: Any]
            do {
                _ = try await auth.createTenant(changes)
                XCTFail("\(json) was not refused")
            } catch {
                XCTAssertEqual(error.code.name, expected?["code"] as? String, json)
                XCTAssertEqual(error.message, expected?["message"] as? String, json)
                let details = try JSONSerialization.jsonObject(with: Data(error.detailsJSON.utf8)) as? NSDictionary
                XCTAssertEqual(details, expected?["details"] as? NSDictionary, json)
            }
        }

        // One spelled out: the display name's rule, naming the field.
        do {
            _ = try await auth.createTenant(TenantChanges(displayName: "ab"))
            XCTFail("a 2-letter display name was taken")
        } catch {
            XCTAssertEqual(error.code, .invalidArgument)
            XCTAssertEqual(
                error.message,
                "The field 'displayName' must be 4 to 20 letters, digits and hyphens, starting with a letter.")
            XCTAssertEqual(error.detailsJSON, #"{"field":"displayName"}"#)
        }
        await assertThrows(.invalidArgument) { _ = try await auth.listTenants(maxResults: 0) }
        await assertThrows(.invalidArgument) { _ = try await auth.updateTenant("", TenantChanges(displayName: "Acme")) }
        await assertThrows(.invalidArgument) { _ = try await auth.getTenant("not a tenant id") }
        // A tenant that does not exist is that, whatever else is wrong, through either door.
        await assertThrows(.tenantNotFound) {
            _ = try await auth.updateTenant("nope", TenantChanges(smsAppName: "\u{7}"))
        }
        let json = await auth.call("updateTenant", paramsJSON: #"{"tenantId": "nope", "smsAppName": "\u0007"}"#)
        XCTAssertEqual(json.status, PhoneAuthError.Code.tenantNotFound.status, json.json)
    }
}
