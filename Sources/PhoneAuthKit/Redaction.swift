/// What printing, `dump` and debuggers show of the values that hold secrets (tokens, codes, the
/// master key, a challenge's session): everything else, and the secrets' absence said plainly.
extension PhoneCredential: CustomReflectable {
    /// The verification ID only: the code is a secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["verificationID": verificationID, "verificationCode": "<redacted>"])
    }
}

extension SignInResult: CustomStringConvertible, CustomReflectable {
    /// The user and the tokens' lifetime; the tokens are secrets.
    public var description: String {
        "SignInResult(uid: \(user.uid), isNewUser: \(isNewUser), expiresIn: \(expiresIn))"
    }
    /// The same as ``description``, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "user": user, "idToken": "<redacted>", "refreshToken": "<redacted>", "expiresIn": expiresIn,
                "isNewUser": isNewUser,
            ])
    }
}

extension SMSMessage: CustomStringConvertible, CustomReflectable {
    /// Everything but the body and the code.
    public var description: String {
        "SMSMessage(to: …\(to.suffix(4)), channel: \(channel.rawValue), languageCode: \(languageCode), "
            + "purpose: \(purpose), encoding: \(encoding), segments: \(segments))"
    }
    /// The same as ``description``, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "to": "…" + to.suffix(4), "channel": channel.rawValue, "body": "<redacted>", "code": "<redacted>",
                "languageCode": languageCode,
                "verificationID": verificationID, "purpose": purpose, "encoding": encoding, "segments": segments,
            ])
    }
}

extension VerificationPush: CustomStringConvertible, CustomReflectable {
    /// The token type only: the payload holds the receipt's secret.
    public var description: String { "VerificationPush(tokenType: \(tokenType))" }
    /// The same as ``description``, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["appToken": "<redacted>", "tokenType": tokenType, "payloadJSON": "<redacted>"])
    }
}

extension TotpEnrollment: CustomReflectable {
    /// The expiry only: the secret and the URI that holds it are secrets.
    public var customMirror: Mirror {
        Mirror(self, children: ["secretKey": "<redacted>", "otpauthURI": "<redacted>", "expiresAt": expiresAt])
    }
}

extension MultiFactorChallenge: CustomStringConvertible, CustomReflectable {
    /// The hints and the expiry; the session is a secret.
    public var description: String { "MultiFactorChallenge(hints: \(hints.count), expiresAt: \(expiresAt))" }
    /// The same without the session, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["session": "<redacted>", "expiresAt": expiresAt, "hints": hints])
    }
}

extension PhoneAuthError: CustomReflectable {
    /// Code, message and details; the temporary proof and a challenge's session are left out, the number masked.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "code": code, "message": message, "detailsJSON": detailsJSON,
                "temporaryProof": temporaryProof == nil ? "none" : "<redacted>",
                "phoneNumber": phoneNumber.map { "…" + $0.suffix(4) } ?? "none",
                "multiFactorChallenge": multiFactorChallenge as Any,
            ])
    }
}

extension PhoneAuth.Configuration: CustomReflectable {
    /// The settings without the master key, and the database without a password in its URI.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "database": Self.withoutPassword(database), "masterKey": masterKey == nil ? "none" : "<redacted>",
                "projectID": projectID as Any, "issuer": issuer as Any,
                "testPhoneNumbers": testPhoneNumbers.keys.sorted(),
                "sms": sms,
            ])
    }

    /// `postgresql://user:secret@host/db` → `postgresql://user:<redacted>@host/db`.
    static func withoutPassword(_ database: String) -> String {
        let parts = database.split(separator: "://", maxSplits: 1)
        guard parts.count == 2, let at = parts[1].firstIndex(of: "@"),
            let colon = parts[1][..<at].firstIndex(of: ":")
        else { return database }
        return String(database[..<database.index(after: colon)]) + "<redacted>" + String(database[at...])
    }
}
