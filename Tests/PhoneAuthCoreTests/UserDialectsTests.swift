import XCTest

@testable import PhoneAuthCore

/// One user in every dialect (UserRecord+Dialects), byte for byte: each under Firebase's names
/// for that dialect, so a door's user cannot drift from another's.
final class UserDialectsTests: XCTestCase {
    private let user = UserRecord(
        uid: "u1", phoneNumber: "+16505550101", displayName: "Ada", disabled: false,
        createdAt: Timestamp(milliseconds: 1_486_167_484_000), lastSignInAt: Timestamp(milliseconds: 1_486_167_485_250),
        validSince: nil, customClaims: #"{"admin":true}"#,
        factors: [
            EnrolledFactor(
                enrollmentId: "f1", factorId: .phone, displayName: "work", phoneNumber: "+16505550199",
                enrolledAt: Timestamp(milliseconds: 1_609_502_400_000)),
            EnrolledFactor(
                enrollmentId: "f2", factorId: .totp, displayName: nil, phoneNumber: nil,
                enrolledAt: Timestamp(milliseconds: 1_609_502_401_000)),
        ],
        tenant: TenantID(unchecked: "acme"))

    func testTheJSONMethodsShowTheAdminSDKsNames() {
        XCTAssertEqual(
            JSONCodec.serialize(user.json),
            #"{"uid":"u1","phoneNumber":"+16505550101","displayName":"Ada","disabled":false,"#
                + #""metadata":{"creationTime":"2017-02-04T00:18:04.000Z","lastSignInTime":"2017-02-04T00:18:05.250Z"},"#
                + #""tokensValidAfterTime":"2017-02-04T00:18:04.000Z","customClaims":{"admin":true},"#
                + #""providerData":[{"providerId":"phone","uid":"+16505550101","phoneNumber":"+16505550101"}],"#
                + #""multiFactor":{"enrolledFactors":[{"uid":"f1","factorId":"phone","displayName":"work","#
                + #""phoneNumber":"+16505550199","enrollmentTime":"2021-01-01T12:00:00.000Z"},"#
                + #"{"uid":"f2","factorId":"totp","displayName":null,"enrollmentTime":"2021-01-01T12:00:01.000Z"}]},"#
                + #""passkeyInfo":[],"tenantId":"acme"}"#)
    }

    func testLookupSaysLastLoginAtAndListsEveryFactor() {
        XCTAssertEqual(
            JSONCodec.serialize(user.identityToolkitJSON),
            #"{"localId":"u1","phoneNumber":"+16505550101","displayName":"Ada","disabled":false,"#
                + #""createdAt":"1486167484000","lastLoginAt":"1486167485250","#
                + #""lastRefreshAt":"2017-02-04T00:18:05.250Z","validSince":"1486167484","#
                + #""customAttributes":"{\"admin\":true}","#
                + #""providerUserInfo":[{"providerId":"phone","rawId":"+16505550101","phoneNumber":"+16505550101"}],"#
                + #""mfaInfo":[{"mfaEnrollmentId":"f1","displayName":"work","enrolledAt":"2021-01-01T12:00:00.000Z","#
                + #""phoneInfo":"+16505550199"},{"mfaEnrollmentId":"f2","enrolledAt":"2021-01-01T12:00:01.000Z","#
                + #""totpInfo":{}}],"tenantId":"acme"}"#)
    }

    func testExportSaysLastSignedInAtAndKeepsTOTPSecretsHome() {
        XCTAssertEqual(
            JSONCodec.serialize(user.exportJSON),
            #"{"localId":"u1","phoneNumber":"+16505550101","displayName":"Ada","disabled":false,"#
                + #""createdAt":"1486167484000","lastSignedInAt":"1486167485250","#
                + #""customAttributes":"{\"admin\":true}","tenantId":"acme","#
                + #""providerUserInfo":[{"providerId":"phone","rawId":"+16505550101","phoneNumber":"+16505550101"}],"#
                + #""mfaInfo":[{"mfaEnrollmentId":"f1","displayName":"work","enrolledAt":"2021-01-01T12:00:00.000Z","#
                + #""phoneInfo":"+16505550199"}]}"#)
    }

    func testImportReadsBackWhatExportWrote() throws {
        var phoneOnly = user
        phoneOnly.factors.removeLast()
        let imported = try AccountTransfer.importedUser(
            phoneOnly.exportJSON, tenant: phoneOnly.tenant, now: Timestamp(milliseconds: 0))
        XCTAssertEqual(imported, phoneOnly)
    }

    func testHooksSeeTheBlockingFunctionsNames() {
        var revoked = user
        revoked.validSince = Timestamp(milliseconds: 1_700_000_000_500)
        XCTAssertEqual(
            JSONCodec.serialize(revoked.hookJSON),
            #"{"uid":"u1","phone_number":"+16505550101","display_name":"Ada","disabled":false,"tenant_id":"acme","#
                + #""custom_claims":{"admin":true},"#
                + #""provider_data":[{"uid":"+16505550101","provider_id":"phone","phone_number":"+16505550101"}],"#
                + #""multi_factor":{"enrolled_factors":[{"uid":"f1","factor_id":"phone","phone_number":"+16505550199","#
                + #""display_name":"work","enrollment_time":"2021-01-01T12:00:00.000Z"},"#
                + #"{"uid":"f2","factor_id":"totp","enrollment_time":"2021-01-01T12:00:01.000Z"}]},"#
                + #""metadata":{"creation_time":1486167484000,"last_sign_in_time":1486167485250},"#
                + #""tokens_valid_after_time":1700000000}"#)
    }

    func testEventsShowTheNumberAsTheirSettingsSay() {
        XCTAssertEqual(
            JSONCodec.serialize(user.eventJSON(phone: { $0.map { .string(PhoneNumber.mask($0)) } })),
            #"{"uid":"u1","phoneNumber":"+*******0101","displayName":"Ada","disabled":false,"#
                + #""customClaims":{"admin":true},"creationTime":"2017-02-04T00:18:04.000Z","#
                + #""lastSignInTime":"2017-02-04T00:18:05.250Z","tenantId":"acme"}"#)
    }
}
