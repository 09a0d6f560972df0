@testable import PhoneAuthCore

/// What StateLiteralTests lets be: the string enums that are not states, kinds or reasons, and
/// the files where a guarded word, quoted, means something else.
extension StateLiteralTests {
    /// The library's `enum X: String`s whose words are not guarded, and why.
    static let unguarded: [(type: String, file: String, why: String)] = [
        ("Channel", "PhoneAuthCore/Inputs/Channel.swift", "its words also name configuration sections and providers"),
        ("Status", "PhoneAuthCore/Receipts/DeliveryReceipt.swift", "its words are DeliveryState's, which are guarded"),
        ("LimitWindow", "PhoneAuthCore/Limits/SQLStore+Limits.swift", "a counter's scope prefix, not a state"),
        ("LimitName", "PhoneAuthCore/Limits/LimitName.swift", "configuration keys"),
        ("HookName", "PhoneAuthCore/Hooks/HookName.swift", "configuration keys"),
        ("OnError", "PhoneAuthCore/Hooks/HookSettings.swift", "a setting"),
        ("EventType", "PhoneAuthCore/Events/EventType.swift", "names of events, as the host reads them"),
        ("EventName", "PhoneAuthCore/Engine/EventName.swift", "names of log events"),
        ("Code", "PhoneAuthCore/Errors/PhoneAuthError.swift", "error codes"),
        ("Kind", "PhoneAuthCore/AppVerification/CaptchaProviderSettings.swift", "a setting"),
        ("WidgetStyle", "PhoneAuthCore/AppVerification/CaptchaProviderSettings.swift", "a setting"),
        ("Access", "PhoneAuthCore/Operations/Operation.swift", "a property of the catalogue's operations"),
        ("Encoding", "PhoneAuthCore/Texts/SMSCost.swift", "names of SMS encodings"),
        ("SigningAlgorithm", "PhoneAuthCore/Engine/EngineConfig.swift", "a setting"),
        ("Mode", "PhoneAuthCore/Pumping/PumpingPolicy.swift", "a setting"),
        ("Mode", "PhoneAuthKit/PumpingSettings.swift", "a setting, as PumpingPolicy.Mode"),
        ("Action", "PhoneAuthKit/PumpingDecision.swift", "PumpingDecision.Action's words, which are guarded"),
        ("Rule", "PhoneAuthKit/PumpingDecision.swift", "PumpingDecision.Rule's words, which are guarded"),
        ("ScopeKind", "PhoneAuthKit/PumpingDecision.swift", "PumpingScope.Kind's words, which are guarded"),
        ("EnforcementState", "PhoneAuthCore/Pumping/TollFraudPolicy.swift", "a setting, in Firebase's words"),
        ("Ceremony", "PhoneAuthCore/Passkeys/ClientData.swift", "WebAuthn's client data types"),
        ("UserVerification", "PhoneAuthCore/Passkeys/PasskeySettings.swift", "a setting, in WebAuthn's words"),
        ("EnforcementState", "PhoneAuthKit/TollFraudSettings.swift", "a setting, as TollFraudPolicy's"),
        ("SMSProviderKind", "PhoneAuthCore/Engine/EngineConfig.swift", "a setting"),
        ("Synchronous", "PhoneAuthCore/Engine/EngineConfig.swift", "a setting"),
        ("SecondFactorKind", "PhoneAuthKit/SecondFactorKind.swift", "FactorKind's public twin (its words are guarded)"),
        ("DeliveryChannel", "PhoneAuthKit/DeliveryChannel.swift", "Channel's public twin"),
        ("BlockingHook", "PhoneAuthKit/BlockingHook.swift", "HookName's public twin"),
        ("Access", "PhoneAuthKit/Method.swift", "Operation.Access's public twin"),
    ]

    /// Files (relative to Sources/) where some of the words, quoted, mean something else; nil
    /// words: every word. Each file of an entry quotes each of its words (testEachExemptionIsNeeded).
    static let exemptions: [(files: [String], words: Set<String>?, why: String)] = [
        (["PhoneAuthCore/Storage/Migrations.swift"], nil, "the migrations' history is fixed: its DDL names the states"),
        (
            ["PhoneAuthCore/Providers/Twilio/TwilioReceipts.swift"], ["sending", "sent", "delivered", "failed"],
            "Twilio's MessageStatus and CallStatus words, read into DeliveryReceipt.Status"
        ),
        (
            ["PhoneAuthCore/Providers/Vonage/VonageReceipts.swift"], ["delivered", "failed", "rejected", "timeout"],
            "Vonage's status words, read into DeliveryReceipt.Status"
        ),
        (
            ["PhoneAuthCore/Providers/WhatsApp/MetaReceipts.swift"], ["sent", "delivered", "failed"],
            "Meta's status words, read into DeliveryReceipt.Status"
        ),
        (["PhoneAuthCore/Passkeys/PasskeyVerifier.swift"], ["none"], "WebAuthn's attestation format \"none\""),
        (["PhoneAuthCore/Operations/OperationCatalogue+Passkeys.swift"], ["passkey"], "the result's field \"passkey\""),
        (
            ["PhoneAuthCore/Operations/OperationCatalogue+Pumping.swift"], ["lifted"],
            "liftPumpingBlock's result field \"lifted\""
        ),
        (
            ["PhoneAuthCore/Passkeys/PasskeyService.swift"], ["timeout", "none"],
            "WebAuthn's options: the field \"timeout\", the attestation asked \"none\""
        ),
        (
            ["PhoneAuth/CallbackCaptchaVerifier.swift"], ["tollFraudRisk"],
            "the host verifier's documented answer {\"tollFraudRisk\": 0.1}, a number"
        ),
        (
            ["PhoneAuthCore/Providers/Webhook/WebhookProvider.swift"], ["invalidNumber"],
            "the webhook's documented answer {\"error\": \"invalidNumber\"}"
        ),
        (
            ["PhoneAuthCore/Providers/Vonage/VonageProvider.swift"], ["phone", "custom"],
            "Vonage's words: an endpoint's type, a message's type"
        ),
        (
            ["PhoneAuthCore/Errors/PhoneAuthError.swift"], ["expired", "malformed", "unknown"],
            "ID and refresh tokens' reasons (no enum names them yet), for Firebase's message"
        ),
        (["PhoneAuthCore/SignIn/CustomTokens.swift"], ["expired"], "a custom token's refusal reason (no enum yet)"),
        (
            ["PhoneAuthCore/Pumping/PumpingDecision.swift"], ["sent"], "a count of codes sent (a decision's field)"
        ),
        (
            ["PhoneAuthCore/Pumping/SQLStore+Pumping.swift"], ["sent", "hour", "day"],
            "the counts' column names (hour_sent, day_sent, …)"
        ),
        (
            ["PhoneAuthCore/Hooks/HookService.swift"], ["blocked", "refused"],
            "a hook call's outcome, as the hookCalled event names it"
        ),
        (
            [
                "PhoneAuthCore/Events/EventOutbox.swift", "PhoneAuthCore/Sessions/SessionService.swift",
                "PhoneAuthCore/SignIn/SignInService.swift", "PhoneAuthCore/Verification/CodeRejection.swift",
            ], ["unknown"],
            "the reason given for an ID that names nothing (an event, a refresh token, a temporary proof, a "
                + "verification): no enum names these reasons yet"
        ),
        (
            [
                "PhoneAuthCore/AppVerification/AppVerificationService.swift", "PhoneAuthKit/PhoneAuth+Async.swift",
                "PhoneAuthKit/PhoneAuth+Hooks.swift",
            ], ["unknown"], "an APNs token's type (prod, sandbox or unknown)"
        ),
        (
            ["PhoneAuthCore/Verification/VerificationService.swift"],
            ["malformed", "tooManyAttempts", "temporaryProof"],
            "refusal reasons of their own (no enum yet): a verification ID's, a resend after too many wrong codes "
                + "(tooManyRequests), a temporary proof where only a code is taken (invalidCredential)"
        ),
        (
            [
                "PhoneAuthCore/Accounts/AccountService.swift", "PhoneAuthCore/Accounts/AccountTransfer.swift",
                "PhoneAuthCore/Accounts/UserRecord+Dialects.swift",
                "PhoneAuthCore/Operations/OperationCatalogue+Parameters.swift",
                "PhoneAuthCore/Operations/ResultJSON.swift",
                "PhoneAuthCore/Sessions/IDTokens.swift", "PhoneAuthCore/SignIn/SignInResult.swift",
                "PhoneAuthKit/PhoneAuth+Accounts.swift",
            ], ["phone"],
            "Firebase's ID of the phone provider (providerId, provider_id, firebase.identities, sign_in_method)"
        ),
        (
            [
                "PhoneAuthCore/AppVerification/AppVerificationService.swift", "PhoneAuthCore/Inputs/AppProof.swift",
                "PhoneAuthCore/Operations/OperationCatalogue+Parameters.swift",
                "PhoneAuthCore/Operations/OperationCatalogue+Verification.swift",
            ], ["receipt", "captchaToken"], "the JSON fields that carry an app check's proof"
        ),
        (["PhoneAuthCore/Engine/EngineConfig.swift"], ["captcha"], "the configuration's captcha section"),
        (
            [
                "PhoneAuthCore/Accounts/AccountService.swift",
                "PhoneAuthCore/Operations/OperationCatalogue+Parameters.swift",
                "PhoneAuthKit/PhoneAuthError.swift", "PhoneAuthKit/Redaction.swift",
            ], ["temporaryProof"], "the JSON field that carries a temporary proof"
        ),
        (
            [
                "PhoneAuthCore/Sessions/SQLStore+Sessions.swift", "PhoneAuthCore/Sessions/SessionService.swift",
                "PhoneAuthCore/Sessions/ListedSession.swift",
            ], ["secondFactor"], "the field of an event or a session's JSON that names its second factor"
        ),
        (
            ["PhoneAuthCore/Operations/OperationCatalogue+Credentials.swift", "PhoneAuthKit/PhoneAuth+Accounts.swift"],
            ["updatePhoneNumber"], "the operation's name"
        ),
        (["PhoneAuthKit/PhoneAuth.swift"], ["signIn"], "the operation's name"),
        (["PhoneAuthCore/Hooks/HookService.swift"], ["failed"], "a hook call's outcome (hookCalled)"),
        (
            ["PhoneAuthCore/Operations/ResultJSON.swift"], ["pending", "active"],
            "getStatus' fields: events pending, a key's active flag"
        ),
        (["PhoneAuthKit/Redaction.swift"], ["none"], "what a description shows for a missing value"),
    ]
}
