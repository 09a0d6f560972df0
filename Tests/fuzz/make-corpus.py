#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets from docs/API.md.

    python3 Tests/fuzz/make-corpus.py        # rewrites Tests/fuzz/corpus/{call,open}

corpus/call: for every method section of docs/API.md, one input with the parameters its
"Params:" line names (values by field name, tokens as fuzz_call.c placeholders such as
$idToken), one with NULL parameters, and the whole flows written below (sign-in, multi-factor,
custom tokens, linking, app verification), which the placeholders chain together.
corpus/open: a configuration per key of the "Configuration" table, with its documented default
(fuzz_open.c points "database" at its scratch folder), and a few complete ones.
The output is deterministic; the files are committed, so run this again after docs/API.md
changes.
"""
import hashlib
import json
import re
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent
API = HERE.parent.parent / "docs" / "API.md"

TEST = "+16505551234"       # a test number of fuzz_call.c's engines, code 123456
TEST2 = "+16505550000"      # another, code 654321
REAL = "+16505553434"       # a real number: its code comes from the SMS ($smsCode)
CRED = {"verificationId": "$verificationId", "verificationCode": "123456"}

# A plausible value for each parameter name docs/API.md uses.
VALUES = {
    "phoneNumber": TEST,
    "languageCode": "fr-CA",
    "clientIp": "192.0.2.1",
    "multiFactorHint": "$hint",
    "multiFactorSession": "$session",
    "appVerification": {"receipt": "$receipt", "secret": "$secret"},
    "verificationId": "$verificationId",
    "verificationCode": "123456",
    "credential": CRED,
    "idToken": "$idToken",
    "providerId": "phone",
    "accountName": "alice",
    "issuer": "Example",
    "displayName": "work",
    "factorId": "totp",
    "sessionInfo": "$sessionInfo",
    "enrollmentId": "$enrollmentId",
    "session": "$session",
    "assertion": {"factorId": "totp", "enrollmentId": "$enrollmentId", "verificationCode": "$totp"},
    "uid": "user-1",
    "claims": {"role": "admin", "level": 3},
    "customToken": "$customToken",
    "refreshToken": "$refreshToken",
    "checkRevoked": True,
    "disabled": False,
    "maxResults": 2,
    "pageToken": "$pageToken",
    "appToken": "apns-token-$nonce",
    "tokenType": "sandbox",
    "notification": {"phoneauth": {"receipt": "r1", "secret": "s1"}},
    "callbackScheme": "com.example.app",
    "url": "com.example.app://phoneauth/link?deep_link_id=https%3A%2F%2Fcaptcha.example.com%2Fpage"
           "%3FeventId%3D$eventId%26captchaToken%3Dok-$nonce",
}


def call(method, params=None, engine_b=False):
    text = ("*" if engine_b else "") + method
    if params is not None:
        text += "\n" + (params if isinstance(params, str) else json.dumps(params))
    return text


def flow(*calls):
    return "\n----\n".join(calls)


def sign_in(number=TEST, code="123456", b=False):
    return [call("verifyPhoneNumber", {"phoneNumber": number}, b),
            call("signInWithCredential", {"credential": {"verificationId": "$verificationId", "verificationCode": code}}, b)]


def method_sections(text):
    """(names, params) for each '### ' section: the backticked parameter names of its Params."""
    out = []
    for block in re.split(r"^### ", text, flags=re.M)[1:]:
        title, _, body = block.partition("\n")
        names = [n.strip() for n in title.split("/")]
        params = []
        m = re.search(r"Params(?:, [^:]*)?:(.*?)(?:Result|\n\n)", body, flags=re.S)
        if m:
            for p in re.findall(r"`([a-zA-Z]+)`", m.group(1)):
                if p in VALUES and p not in params:
                    params.append(p)
        out.append((names, params))
    return out


def config_rows(text):
    """(key, default) for each row of the Configuration table whose default is JSON."""
    section = text.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        m = re.match(r"\| `([a-zA-Z]+)` \| (.*?) \|", line)
        if not m:
            continue
        key, default = m.group(1), m.group(2).strip()
        if default.startswith("`") and default.endswith("`"):
            try:
                rows.append((key, json.loads(default.strip("`"))))
                continue
            except json.JSONDecodeError:
                pass
        try:
            rows.append((key, json.loads(default)))
        except json.JSONDecodeError:
            rows.append((key, None))
    return rows


def call_seeds(text):
    seeds = []
    for names, params in method_sections(text):
        for name in names:
            if not re.fullmatch(r"[a-zA-Z]+", name):
                continue
            p = {k: VALUES[k] for k in params}
            if name == "getUserByPhoneNumber":
                p = {"phoneNumber": TEST}
            elif name in ("getUser", "deleteUser"):
                p = {"uid": "$uid"}
            elif name == "mfaEnrollStart":
                p = {"idToken": "$idToken", "phoneNumber": TEST2}
            seeds.append(call(name, p))
            seeds.append(call(name))
    # Errors of the ABI itself.
    seeds += [
        call("noSuchMethod", {}), call("verifyPhoneNumber", "{\"phoneNumber\": "),
        call("verifyPhoneNumber", {"phoneNumber": TEST, "s3cr3t!token": 1}),
        call("getUser", {"uid": "u", "extra": {"s3cr3t!": 1}}),
        call("s3cr3t!method", {}), call("verifyPhoneNumber", {"phoneNumber": "s3cr3t!"}),
        call("?verifyPhoneNumber", {"phoneNumber": TEST}),
        call("verifyPhoneNumber", "[1, 2]"), call("verifyPhoneNumber", "\"text\""),
        call("verifyPhoneNumber", {"phoneNumber": "+44 7400 123456", "languageCode": "s3cr3t!"}),
        call("verifyPhoneNumber", {"phoneNumber": "+1 900 555 0100"}),
        call("verifyPhoneNumber", {"phoneNumber": TEST, "clientIp": "2001:db8::1"}),
        call("verifyPhoneNumber", {"phoneNumber": TEST, "clientIp": "::ffff:192.0.2.1"}),
    ]
    # Whole flows.
    seeds += [
        flow(*sign_in(), call("refreshIdToken", {"refreshToken": "$refreshToken"}),
             call("verifyIdToken", {"idToken": "$idToken", "checkRevoked": True}),
             call("signOut", {"refreshToken": "$refreshToken"}),
             call("refreshIdToken", {"refreshToken": "$refreshToken"})),
        flow(call("verifyPhoneNumber", {"phoneNumber": TEST}),
             call("credential", {"verificationId": "$verificationId", "verificationCode": "123456"}),
             call("signInWithCredential", {"credential": CRED}),
             call("signInWithCredential", {"credential": CRED})),
        flow(call("verifyPhoneNumber", {"phoneNumber": TEST}),
             call("signInWithCredential", {"credential": {"verificationId": "$verificationId", "verificationCode": "000000"}}),
             call("getVerificationStatus", {"verificationId": "$verificationId"}),
             call("unlockPhoneNumber", {"phoneNumber": TEST})),
        flow(call("verifyPhoneNumber", {"phoneNumber": REAL, "languageCode": "fr", "clientIp": "198.51.100.7"}),
             call("signInWithCredential", {"credential": {"verificationId": "$verificationId", "verificationCode": "$smsCode"}, "clientIp": "198.51.100.7"}),
             call("getVerificationStatus", {"verificationId": "$verificationId"})),
        flow(call("verifyPhoneNumber", {"phoneNumber": "+16505550199"}),
             call("getVerificationStatus", {"verificationId": "$verificationId"})),
        # TOTP enrolment and sign-in with it.
        flow(*sign_in(), call("mfaTotpStart", {"idToken": "$idToken", "accountName": "alice", "issuer": "Example"}),
             call("mfaEnrollFinalize", {"idToken": "$idToken", "factorId": "totp", "sessionInfo": "$sessionInfo",
                                        "verificationCode": "$totp", "displayName": "app"}),
             *sign_in(),
             call("mfaResolveSignIn", {"session": "$session", "assertion": {"factorId": "totp", "enrollmentId": "$hint",
                                                                            "verificationCode": "$totpNext"}}),
             call("mfaUnenroll", {"idToken": "$idToken", "enrollmentId": "$hint"})),
        # SMS second factor: enrol, sign in, resolve.
        flow(*sign_in(), call("mfaEnrollStart", {"idToken": "$idToken", "phoneNumber": TEST2}),
             call("mfaEnrollFinalize", {"idToken": "$idToken", "credential": {"verificationId": "$verificationId", "verificationCode": "654321"},
                                        "displayName": "work"}),
             *sign_in(),
             call("verifyPhoneNumber", {"multiFactorHint": "$hint", "multiFactorSession": "$session"}),
             call("mfaResolveSignIn", {"session": "$session", "assertion": {"factorId": "phone", "credential":
                                       {"verificationId": "$verificationId", "verificationCode": "654321"}}}),
             call("getUser", {"uid": "$uid"}), call("mfaUnenroll", {"idToken": "$idToken", "enrollmentId": "$enrollmentId"})),
        # Custom tokens, linking, a temporary proof, unlink, update.
        flow(call("createCustomToken", {"uid": "custom-$nonce", "claims": {"role": "admin"}}),
             call("signInWithCustomToken", {"customToken": "$customToken"}),
             call("verifyPhoneNumber", {"phoneNumber": "+447400123456"}),
             call("linkWithCredential", {"idToken": "$idToken", "credential": {"verificationId": "$verificationId", "verificationCode": "111111"}}),
             call("unlink", {"idToken": "$idToken", "providerId": "phone"})),
        flow(*sign_in(), call("createCustomToken", {"uid": "other-$nonce"}),
             call("signInWithCustomToken", {"customToken": "$customToken"}),
             call("verifyPhoneNumber", {"phoneNumber": TEST}),
             call("linkWithCredential", {"idToken": "$idToken", "credential": CRED}),
             call("signInWithCredential", {"credential": {"providerId": "phone", "temporaryProof": "$temporaryProof", "phoneNumber": TEST}})),
        flow(*sign_in(), call("verifyPhoneNumber", {"phoneNumber": "+33612345678"}),
             call("updatePhoneNumber", {"idToken": "$idToken", "credential": {"verificationId": "$verificationId", "verificationCode": "222222"}}),
             call("verifyPhoneNumber", {"phoneNumber": "+33612345678"}),
             call("reauthenticateWithCredential", {"idToken": "$idToken", "credential": {"verificationId": "$verificationId", "verificationCode": "222222"}})),
        # Users.
        flow(*sign_in(), call("updateUser", {"uid": "$uid", "displayName": "Alice", "disabled": False}),
             call("setCustomUserClaims", {"uid": "$uid", "claims": {"tier": "gold"}}),
             call("refreshIdToken", {"refreshToken": "$refreshToken"}),
             call("verifyIdToken", {"idToken": "$idToken"}),
             call("listUsers", {"maxResults": 1}), call("listUsers", {"maxResults": 1, "pageToken": "$pageToken"}),
             call("revokeRefreshTokens", {"uid": "$uid"}),
             call("verifyIdToken", {"idToken": "$idToken", "checkRevoked": True}),
             call("updateUser", {"uid": "$uid", "disabled": True}),
             call("deleteUser", {"uid": "$uid"})),
        flow(call("getJwks"), call("getStorageStatistics", {})),
        # App verification on engine B (enforced).
        flow(call("verifyClient", {"appToken": "apns-$nonce", "tokenType": "prod", "clientIp": "192.0.2.9"}, True),
             call("canHandleNotification", {"notification": {"phoneauth": {"receipt": "$receipt", "secret": "$secret"}}}, True),
             call("verifyPhoneNumber", {"phoneNumber": REAL, "appVerification": {"receipt": "$receipt", "secret": "$secret"}}, True),
             call("signInWithCredential", {"credential": {"verificationId": "$verificationId", "verificationCode": "$smsCode"}}, True)),
        flow(call("getCaptchaChallenge", {"callbackScheme": "com.example.app", "languageCode": "fr"}, True),
             call("canHandleURL", {"url": VALUES["url"]}, True),
             call("verifyPhoneNumber", {"phoneNumber": TEST, "appVerification": {"captchaToken": "$captchaToken"}}, True),
             call("signInWithCredential", {"credential": CRED}, True)),
        flow(call("verifyPhoneNumber", {"phoneNumber": TEST, "appVerification": {"captchaToken": "low-$nonce"}}, True),
             call("verifyPhoneNumber", {"phoneNumber": TEST, "appVerification": {"captchaToken": "no-$nonce"}}, True),
             call("verifyPhoneNumber", {"phoneNumber": TEST, "appVerification": {"captchaToken": "junk-$nonce"}}, True),
             call("verifyPhoneNumber", {"phoneNumber": TEST, "appVerification": {"captchaToken": "long-$nonce"}}, True),
             call("verifyPhoneNumber", {"phoneNumber": TEST, "appVerification": {"captchaToken": "err-$nonce"}}, True)),
        flow(call("verifyClient", {"appToken": "fail-$nonce"}, True),
             call("verifyPhoneNumber", {"phoneNumber": TEST}, True),
             call("canHandleNotification", {"notification": "{\"phoneauth\": {\"warning\": \"probe\"}}"}, True)),
        flow(*sign_in(b=True), call("mfaEnrollStart", {"idToken": "$idToken", "phoneNumber": "+447400123456",
                                                       "appVerification": {"captchaToken": "ok-$nonce"}}, True)),
    ]
    return seeds


def open_seeds(text):
    seeds = []
    for key, default in config_rows(text):
        if key == "database":
            continue
        if default is not None:
            seeds.append({"database": "x.db", key: default})
    seeds += [
        {"database": "x.db"},
        {"database": "postgresql://user:s3cr3t!@db.example.com:5432/auth?sslmode=verify-full",
         "postgres": {"poolSize": 4, "schema": "phoneauth", "connectTimeoutSeconds": 5, "statementTimeoutMs": 5000}},
        {"database": "x.db", "projectId": "my-project", "issuer": "https://auth.example.com/my-project",
         "masterKey": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", "signingAlgorithm": "RS256",
         "idTokenTtlSeconds": 600, "codeLength": 8, "codeTtlSeconds": 120, "maxAttempts": 3,
         "resendAfterSeconds": 0, "defaultLanguageCode": "fr",
         "testPhoneNumbers": {"+16505551234": "123456"},
         "appVerification": {"enforce": True, "disabledForTesting": False, "pushTimeoutSeconds": 5, "receiptTtlSeconds": 300},
         "captcha": {"pageUrl": "https://captcha.example.com/page", "minScore": 0.7},
         "sms": {"provider": "console", "maxAttempts": 5, "retryBackoffMs": 1000},
         "mfa": {"recentSignInSeconds": 300, "maxFactors": 5, "sessionTtlSeconds": 300},
         "quotas": {"smsPerNumberPerHour": 5, "smsPerIpPerHour": 20, "smsPerProjectPerDay": 10000,
                    "smsPerRegionPerDay": {"US": 5000, "NG": 50}, "regionBurstPerHour": 0,
                    "maxConsecutiveFailures": 100, "lockoutSeconds": 3600, "maxLockoutSeconds": 2592000,
                    "wrongCodesPerIpPer5Minutes": 50, "appChecksPerIpPerHour": 60},
         "smsRegionPolicy": {"allowlistOnly": {"allowedRegions": ["US", "GB", "001"]}},
         "phoneNumberTypes": {"deny": ["PREMIUM_RATE", "SHARED_COST", "UNKNOWN", "VOIP"]},
         "sqliteSynchronous": "full"},
        {"database": "x.db", "defaultLanguageCode": "sw",
         "sms": {"appName": "Acme", "maxSegments": 2, "originBoundDomain": "login.example.com", "androidAppHash": "FA+9qCX9VSu",
                 "templates": {"sw": "{code} ni nambari yako ya {appName}", "fr-CA": "{code} : code {appName}, {minutes} min"}}},
        {"database": "x.db", "masterKey": "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
         "signingAlgorithm": "EdDSA"},
        {"database": "x.db", "smsRegionPolicy": {"allowlistOnly": {"allowedRegions": ["XX", "s3cr3t!"]}}},
        {"database": "x.db", "testPhoneNumbers": {"+1650555123": "12345", "s3cr3t!": "123456"}},
        {"database": "x.db", "s3cr3t!key": 1, "sms": {"s3cr3t!": 1}},
        {"database": "x.db", "masterKey": "s3cr3t!-not-base64-0123456789"},
        {"database": 5},
        {"database": "x.db", "quotas": {"smsPerNumberPerHour": -1}},
    ]
    raw = ["{\"database\": \"x.db\", \"codeLength\": 6, \"codeLength\": 7}", "[]", "{", "{\"database\": \"x.db\"} trailing"]
    return [json.dumps(s) for s in seeds] + raw


def write(folder, seeds):
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for s in seeds:
        data = s.encode()
        (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)
    return len(seeds)


def main():
    text = API.read_text()
    n_call = write(HERE / "corpus" / "call", call_seeds(text))
    n_open = write(HERE / "corpus" / "open", open_seeds(text))
    print(f"corpus/call: {n_call} inputs, corpus/open: {n_open} inputs")


if __name__ == "__main__":
    main()
