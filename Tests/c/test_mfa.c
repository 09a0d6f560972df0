/* test_mfa.c: second factors (SMS and TOTP), linking, re-authentication, and bad input to the
 * methods that came with them. Every number is a test number (fixed code, no SMS). TOTP codes
 * are computed here with OpenSSL (RFC 6238), and that helper is itself checked first. */
#include "testutil.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static phoneauth_engine *g_e;

#define PHONE_A "+16505551234"      /* signs in, enrols PHONE_A2 as an SMS second factor */
#define CODE_A "123456"
#define PHONE_A2 "+16505555678"
#define CODE_A2 "654321"
#define PHONE_T "+16505550003"      /* enrols a TOTP factor */
#define CODE_T "333333"
#define PHONE_P "+16505550004"      /* plain user: temporary proof target, re-authentication */
#define CODE_P "444444"
#define PHONE_FREE "+16505550001"   /* linked to the custom-token user */
#define CODE_FREE "111111"
#define PHONE_NOBODY "+16505550002" /* never anyone's */
#define CODE_NOBODY "222222"

#define CONFIG                                                                               \
    "{\"testPhoneNumbers\": {\"" PHONE_A "\": \"" CODE_A "\", \"" PHONE_A2 "\": \"" CODE_A2   \
    "\", \"" PHONE_T "\": \"" CODE_T "\", \"" PHONE_P "\": \"" CODE_P "\", \"" PHONE_FREE     \
    "\": \"" CODE_FREE "\", \"" PHONE_NOBODY "\": \"" CODE_NOBODY "\"}}"

/* ---- TOTP (RFC 6238 over RFC 4226 HOTP, HMAC-SHA1) ------------------------------------------ */

/* RFC 4648 base32 without padding (what mfaTotpStart returns); '=' ends the input.
 * Returns the number of bytes, or -1 on a character outside the alphabet or overflow. */
static int base32_decode(const char *s, unsigned char *out, size_t cap) {
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (; *s && *s != '='; s++) {
        int v;
        if (*s >= 'A' && *s <= 'Z') v = *s - 'A';
        else if (*s >= '2' && *s <= '7') v = *s - '2' + 26;
        else return -1;
        acc = (acc << 5) | (uint32_t)v;
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            if (n == cap) return -1;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    return (int)n;
}

/* The code for Unix time t, zero-padded to `digits` in out (size > digits). 0 on failure. */
static int totp_code(const unsigned char *key, size_t key_len, long long t, int digits, char *out,
                     size_t out_size) {
    unsigned char msg[8], md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    uint64_t step = (uint64_t)(t / 30);
    for (int i = 7; i >= 0; i--, step >>= 8) msg[i] = (unsigned char)(step & 0xff);
    if (!HMAC(EVP_sha1(), key, (int)key_len, msg, sizeof msg, md, &md_len) || md_len != 20)
        return 0;
    int off = md[19] & 0x0f; /* dynamic truncation */
    uint32_t bin = ((uint32_t)(md[off] & 0x7f) << 24) | ((uint32_t)md[off + 1] << 16) |
                   ((uint32_t)md[off + 2] << 8) | md[off + 3];
    uint32_t mod = 1;
    for (int i = 0; i < digits; i++) mod *= 10;
    return snprintf(out, out_size, "%0*u", digits, (unsigned)(bin % mod)) == digits;
}

/* The helper must be right before it can judge the library: RFC 6238 appendix B (SHA1). */
static void test_totp_helper(void) {
    const char *seed = "12345678901234567890";
    unsigned char key[64];
    int n = base32_decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", key, sizeof key);
    CHECKF(n == 20 && memcmp(key, seed, 20) == 0, "base32 of the RFC seed: %d bytes", n);
    CHECK(base32_decode("GEZ1", key, sizeof key) == -1);
    char code[16] = "";
    CHECKF(totp_code((const unsigned char *)seed, 20, 59, 8, code, sizeof code) &&
               strcmp(code, "94287082") == 0,
           "T=59: %s", code);
    CHECKF(totp_code((const unsigned char *)seed, 20, 1111111109, 8, code, sizeof code) &&
               strcmp(code, "07081804") == 0,
           "T=1111111109 (leading zero): %s", code);
    CHECKF(totp_code((const unsigned char *)seed, 20, 59, 6, code, sizeof code) &&
               strcmp(code, "287082") == 0,
           "T=59, 6 digits: %s", code);
}

/* ---- small helpers -------------------------------------------------------------------------- */

static int str_is(json_t *r, const char *path, const char *want) {
    const char *s = tu_str(r, path);
    return s && want && strcmp(s, want) == 0;
}

static void copy(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src ? src : ""); }

static int is_rfc3339_utc(const char *s) {
    int y, mo, d, h, mi, sec;
    return s && sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) == 6 &&
           s[strlen(s) - 1] == 'Z' && y >= 2020;
}

/* credential {verificationId, code} -> the credential object (new reference) or NULL. */
static json_t *credential_of(const char *vid, const char *code) {
    int st;
    json_t *c = tu_callj(g_e, "credential",
                         json_pack("{s:s, s:s}", "verificationId", vid, "verificationCode", code), &st);
    json_t *cred = NULL;
    if (EXPECT_OK(c, st) && CHECKF(json_is_object(tu_get(c, "credential")), "%s", tu_dump(c)))
        cred = json_incref(tu_get(c, "credential"));
    json_decref(c);
    return cred;
}

/* verifyPhoneNumber + credential for a test number (its code is fixed). */
static json_t *credential_for(const char *phone, const char *code) {
    int st;
    json_t *v = tu_callj(g_e, "verifyPhoneNumber", json_pack("{s:s}", "phoneNumber", phone), &st);
    json_t *cred = NULL;
    if (EXPECT_OK(v, st) && CHECKF(tu_str(v, "verificationId"), "%s", tu_dump(v)))
        cred = credential_of(tu_str(v, "verificationId"), code);
    json_decref(v);
    return cred;
}

/* Runs method with {credential, idToken (unless NULL)}; steals cred. */
static json_t *call_cred(const char *method, const char *id_token, json_t *cred, int *st) {
    json_t *p = json_pack("{s:o?}", "credential", cred);
    if (id_token) json_object_set_new(p, "idToken", json_string(id_token));
    return tu_callj(g_e, method, p, st);
}

static json_t *sign_in(const char *phone, const char *code, int *st) {
    return call_cred("signInWithCredential", NULL, credential_for(phone, code), st);
}

/* verifyIdToken's claims response (new reference), or NULL after a recorded failure. */
static json_t *claims_of(const char *id_token) {
    int st;
    json_t *r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s}", "idToken", id_token ? id_token : ""),
                         &st);
    if (!EXPECT_OK(r, st)) {
        json_decref(r);
        return NULL;
    }
    return r;
}

static json_t *enroll_start(const char *id_token, const char *phone, int *st) {
    return tu_callj(g_e, "mfaEnrollStart",
                    json_pack("{s:s, s:s}", "idToken", id_token, "phoneNumber", phone), st);
}

static json_t *unenroll(const char *id_token, const char *enrollment_id, int *st) {
    return tu_callj(g_e, "mfaUnenroll",
                    json_pack("{s:s, s:s}", "idToken", id_token, "enrollmentId", enrollment_id), st);
}

/* verifyPhoneNumber for the second factor of a sign-in. */
static json_t *verify_hint(const char *hint, const char *session, int *st) {
    return tu_callj(g_e, "verifyPhoneNumber",
                    json_pack("{s:s*, s:s*}", "multiFactorHint", hint, "multiFactorSession", session),
                    st);
}

/* mfaResolveSignIn with a phone assertion (cred stolen) or a TOTP one. */
static json_t *resolve_phone(const char *session, json_t *cred, int *st) {
    return tu_callj(g_e, "mfaResolveSignIn",
                    json_pack("{s:s, s:{s:s, s:o?}}", "session", session, "assertion", "factorId",
                              "phone", "credential", cred),
                    st);
}

static json_t *resolve_totp(const char *session, const char *enrollment_id, const char *code, int *st) {
    return tu_callj(g_e, "mfaResolveSignIn",
                    json_pack("{s:s, s:{s:s, s:s, s:s}}", "session", session, "assertion", "factorId",
                              "totp", "enrollmentId", enrollment_id, "verificationCode", code),
                    st);
}

/* The first enrolled factor of a user object with that factorId, or NULL. */
static json_t *factor_of(json_t *user, const char *factor_id) {
    size_t i;
    json_t *f;
    json_array_foreach(tu_get(user, "multiFactor.enrolledFactors"), i, f) {
        if (str_is(f, "factorId", factor_id)) return f;
    }
    return NULL;
}

/* User P, signed in by main(): the plain user of the bad-input, linking and re-auth checks. */
static char g_uid_p[256], g_idt_p[4096];

/* ---- the SMS second factor ------------------------------------------------------------------ */

static void test_phone_factor(void) {
    int st;
    json_t *r = sign_in(PHONE_A, CODE_A, &st);
    if (!EXPECT_OK(r, st)) {
        json_decref(r);
        return;
    }
    char uid[256], idt[4096], rt[1024];
    copy(uid, sizeof uid, tu_str(r, "user.uid"));
    copy(idt, sizeof idt, tu_str(r, "idToken"));
    copy(rt, sizeof rt, tu_str(r, "refreshToken"));
    CHECKF(json_array_size(tu_get(r, "user.multiFactor.enrolledFactors")) == 0 &&
               json_is_array(tu_get(r, "user.multiFactor.enrolledFactors")),
           "no factors yet: %s", tu_dump(r));
    json_decref(r);

    /* an ordinary sign-in verification cannot finalize an enrolment */
    json_t *cred = credential_for(PHONE_A2, CODE_A2);
    r = call_cred("mfaEnrollFinalize", idt, cred, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_SESSION_EXPIRED, "sessionExpired");
    CHECKF(str_is(r, "error.details.reason", "wrongPurpose"), "%s", tu_dump(r));
    json_decref(r);

    /* the user's own sign-in number cannot be its second factor */
    r = enroll_start(idt, PHONE_A, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_UNSUPPORTED_FIRST_FACTOR, "unsupportedFirstFactor");
    json_decref(r);

    /* enrol PHONE_A2 */
    json_t *v = enroll_start(idt, PHONE_A2, &st);
    EXPECT_OK(v, st);
    CHECKF(tu_str(v, "verificationId") && tu_int(v, "codeLength", -1) == 6 &&
               is_rfc3339_utc(tu_str(v, "expiresAt")),
           "%s", tu_dump(v));
    char enroll_vid[512];
    copy(enroll_vid, sizeof enroll_vid, tu_str(v, "verificationId"));
    json_decref(v);

    /* ... whose verification cannot sign anyone in */
    r = call_cred("signInWithCredential", NULL, credential_of(enroll_vid, CODE_A2), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_SESSION_EXPIRED, "sessionExpired");
    CHECKF(str_is(r, "error.details.reason", "wrongPurpose"), "%s", tu_dump(r));
    json_decref(r);

    r = tu_callj(g_e, "mfaEnrollFinalize",
                 json_pack("{s:s, s:o?, s:s}", "idToken", idt, "credential",
                           credential_of(enroll_vid, CODE_A2), "displayName", "Work phone"),
                 &st);
    if (!EXPECT_OK(r, st)) {
        json_decref(r);
        return;
    }
    json_t *f = factor_of(tu_get(r, "user"), "phone");
    char factor_uid[256];
    copy(factor_uid, sizeof factor_uid, tu_str(f, "uid"));
    CHECKF(factor_uid[0] && tu_str(r, "idToken") && tu_str(r, "refreshToken") &&
               json_array_size(tu_get(r, "user.multiFactor.enrolledFactors")) == 1,
           "%s", tu_dump(r));
    json_t *c = claims_of(tu_str(r, "idToken"));
    CHECKF(str_is(c, "claims.firebase.sign_in_second_factor", "phone") &&
               str_is(c, "claims.firebase.second_factor_identifier", factor_uid),
           "enrolment tokens carry the new factor: %s", tu_dump(c));
    json_decref(c);
    char idt_enrolled[4096];
    copy(idt_enrolled, sizeof idt_enrolled, tu_str(r, "idToken"));
    json_decref(r);

    /* the session that enrolled stays valid */
    r = tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", rt), &st);
    EXPECT_OK(r, st);
    json_decref(r);

    /* the same number twice */
    r = enroll_start(idt, PHONE_A2, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_SECOND_FACTOR_ALREADY_ENROLLED, "secondFactorAlreadyEnrolled");
    json_decref(r);

    /* getUser lists the factor with the full number */
    r = tu_callj(g_e, "getUser", json_pack("{s:s}", "uid", uid), &st);
    EXPECT_OK(r, st);
    f = factor_of(tu_get(r, "user"), "phone");
    CHECKF(str_is(f, "uid", factor_uid) && str_is(f, "phoneNumber", PHONE_A2) &&
               str_is(f, "displayName", "Work phone") && is_rfc3339_utc(tu_str(f, "enrollmentTime")),
           "%s", tu_dump(r));
    json_decref(r);

    /* an enrolled SMS second factor is no first factor */
    r = sign_in(PHONE_A2, CODE_A2, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_UNSUPPORTED_FIRST_FACTOR, "unsupportedFirstFactor");
    json_decref(r);

    /* sign-in now stops at the second factor */
    r = sign_in(PHONE_A, CODE_A, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_SECOND_FACTOR_REQUIRED, "secondFactorRequired");
    CHECKF(!tu_get(r, "idToken") && !tu_get(r, "error.details.idToken"), "no tokens: %s", tu_dump(r));
    char session[512];
    copy(session, sizeof session, tu_str(r, "error.details.session"));
    json_t *hints = tu_get(r, "error.details.hints");
    json_t *hint = json_array_get(hints, 0);
    CHECKF(session[0] && is_rfc3339_utc(tu_str(r, "error.details.expiresAt")), "%s", tu_dump(r));
    CHECKF(json_array_size(hints) == 1 && str_is(hint, "uid", factor_uid) &&
               str_is(hint, "factorId", "phone") && str_is(hint, "displayName", "Work phone") &&
               is_rfc3339_utc(tu_str(hint, "enrollmentTime")),
           "%s", tu_dump(r));
    CHECKF(str_is(hint, "phoneNumber", "+*******5678"), "masked number: %s", tu_dump(hint));
    json_decref(r);

    /* verifyPhoneNumber with the hint: its errors first, then the code to the enrolled number */
    r = verify_hint(factor_uid, NULL, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_MULTI_FACTOR_SESSION, "missingMultiFactorSession");
    json_decref(r);
    r = verify_hint(NULL, session, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_MULTI_FACTOR_INFO, "missingMultiFactorInfo");
    json_decref(r);
    r = verify_hint(factor_uid, "no-such-session", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_MULTI_FACTOR_SESSION, "invalidMultiFactorSession");
    json_decref(r);
    r = verify_hint("no-such-factor", session, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MULTI_FACTOR_INFO_NOT_FOUND, "multiFactorInfoNotFound");
    json_decref(r);
    r = tu_callj(g_e, "verifyPhoneNumber",
                 json_pack("{s:s, s:s, s:s}", "phoneNumber", PHONE_A2, "multiFactorHint", factor_uid,
                           "multiFactorSession", session),
                 &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);

    /* a code sent for another multi-factor session of the same user does not resolve this one
     * (the contract names no error; today sessionExpired, reason wrongPurpose) */
    r = sign_in(PHONE_A, CODE_A, &st);
    v = verify_hint(factor_uid, tu_str(r, "error.details.session"), &st);
    EXPECT_OK(v, st);
    json_decref(r);
    r = resolve_phone(session, credential_of(tu_str(v, "verificationId"), CODE_A2), &st);
    CHECKF(st != PHONEAUTH_OK && !tu_get(r, "idToken"), "%d %s", st, tu_dump(r));
    json_decref(r);
    json_decref(v);

    v = verify_hint(factor_uid, session, &st);
    EXPECT_OK(v, st);
    CHECKF(tu_str(v, "verificationId") && !strstr(tu_dump(v), PHONE_A2 + 2),
           "the number is not shown: %s", tu_dump(v));
    char mfa_vid[512];
    copy(mfa_vid, sizeof mfa_vid, tu_str(v, "verificationId"));
    json_decref(v);

    /* reauthentication of a user with factors also needs the second factor */
    r = call_cred("reauthenticateWithCredential", idt, credential_for(PHONE_A, CODE_A), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_SECOND_FACTOR_REQUIRED, "secondFactorRequired");
    CHECKF(tu_str(r, "error.details.session") != NULL, "%s", tu_dump(r));
    json_decref(r);

    /* mfaResolveSignIn: failed attempts first (they leave the session usable) */
    r = tu_callj(g_e, "mfaResolveSignIn", json_pack("{s:s}", "session", session), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_MULTI_FACTOR_INFO, "missingMultiFactorInfo");
    json_decref(r);
    r = tu_callj(g_e, "mfaResolveSignIn",
                 json_pack("{s:s, s:{s:s, s:s}}", "session", session, "assertion", "factorId", "totp",
                           "verificationCode", "123456"),
                 &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_MULTI_FACTOR_INFO, "missingMultiFactorInfo");
    json_decref(r);
    r = resolve_totp(session, "no-such-factor", "123456", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MULTI_FACTOR_INFO_NOT_FOUND, "multiFactorInfoNotFound");
    json_decref(r);
    r = resolve_phone(session, credential_of(mfa_vid, "000000"), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
    json_decref(r);

    json_t *cred_a2 = credential_of(mfa_vid, CODE_A2);
    r = resolve_phone(session, json_incref(cred_a2), &st);
    if (EXPECT_OK(r, st)) {
        CHECKF(str_is(r, "user.uid", uid) && tu_str(r, "refreshToken") &&
                   tu_bool(r, "additionalUserInfo.isNewUser") == 0 &&
                   str_is(r, "additionalUserInfo.providerId", "phone"),
               "%s", tu_dump(r));
        c = claims_of(tu_str(r, "idToken"));
        CHECKF(str_is(c, "claims.sub", uid) &&
                   str_is(c, "claims.firebase.sign_in_second_factor", "phone") &&
                   str_is(c, "claims.firebase.second_factor_identifier", factor_uid) &&
                   tu_str(c, "claims.sid") != NULL,
               "%s", tu_dump(c));
        json_decref(c);
        /* refreshed tokens of that session keep the second factor */
        json_t *rr = tu_callj(g_e, "refreshIdToken",
                              json_pack("{s:s?}", "refreshToken", tu_str(r, "refreshToken")), &st);
        EXPECT_OK(rr, st);
        c = claims_of(tu_str(rr, "idToken"));
        CHECKF(str_is(c, "claims.firebase.second_factor_identifier", factor_uid), "%s", tu_dump(c));
        json_decref(c);
        json_decref(rr);
    }
    json_decref(r);

    /* the session is single use */
    r = resolve_phone(session, cred_a2, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_MULTI_FACTOR_SESSION, "invalidMultiFactorSession");
    CHECKF(!tu_get(r, "idToken"), "%s", tu_dump(r));
    json_decref(r);

    /* unenrolling: sign-in needs one factor again */
    r = unenroll(idt_enrolled, factor_uid, &st);
    EXPECT_OK(r, st);
    CHECKF(json_is_array(tu_get(r, "user.multiFactor.enrolledFactors")) &&
               json_array_size(tu_get(r, "user.multiFactor.enrolledFactors")) == 0,
           "%s", tu_dump(r));
    json_decref(r);
    r = unenroll(idt_enrolled, factor_uid, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MULTI_FACTOR_INFO_NOT_FOUND, "multiFactorInfoNotFound");
    json_decref(r);
    r = sign_in(PHONE_A, CODE_A, &st);
    EXPECT_OK(r, st);
    CHECKF(str_is(r, "user.uid", uid), "%s", tu_dump(r));
    json_decref(r);
}

/* ---- the TOTP second factor ----------------------------------------------------------------- */

static void test_totp(void) {
    int st;
    json_t *r = sign_in(PHONE_T, CODE_T, &st);
    if (!EXPECT_OK(r, st)) {
        json_decref(r);
        return;
    }
    char uid[256], idt[4096];
    copy(uid, sizeof uid, tu_str(r, "user.uid"));
    copy(idt, sizeof idt, tu_str(r, "idToken"));
    json_decref(r);

    json_t *t = tu_callj(g_e, "mfaTotpStart",
                         json_pack("{s:s, s:s, s:s}", "idToken", idt, "accountName", "t@example.com",
                                   "issuer", "PhoneAuthTest"),
                         &st);
    if (!EXPECT_OK(t, st)) {
        json_decref(t);
        return;
    }
    unsigned char key[64];
    const char *secret = tu_str(t, "secretKey");
    int key_len = secret ? base32_decode(secret, key, sizeof key) : -1;
    CHECKF(key_len == 20, "a 160-bit base32 secret: %s", tu_dump(t));
    CHECKF(str_is(t, "hashingAlgorithm", "SHA1") && tu_int(t, "codeLength", -1) == 6 &&
               tu_int(t, "period", -1) == 30 &&
               is_rfc3339_utc(tu_str(t, "enrollmentCompletionDeadline")),
           "%s", tu_dump(t));
    const char *uri = tu_str(t, "otpauthUri");
    char want_secret[128];
    snprintf(want_secret, sizeof want_secret, "secret=%s", secret ? secret : "?");
    CHECKF(uri && strncmp(uri, "otpauth://totp/", 15) == 0 && strstr(uri, want_secret) &&
               strstr(uri, "PhoneAuthTest"),
           "%s", tu_dump(t));
    char session_info[512];
    copy(session_info, sizeof session_info, tu_str(t, "sessionInfo"));
    json_decref(t);
    if (key_len != 20) return;

    /* step0's code enrols; the code of step0 + 1 (inside the ±1-step window) signs in later,
     * so that no test has to wait for the clock. */
    long long now = (long long)time(NULL);
    char code0[8], code1[8], far[8];
    CHECK(totp_code(key, 20, now, 6, code0, sizeof code0));
    CHECK(totp_code(key, 20, now + 30, 6, code1, sizeof code1));
    CHECK(totp_code(key, 20, now + 3000, 6, far, sizeof far)); /* 100 steps away: refused */

    r = tu_callj(g_e, "mfaEnrollFinalize",
                 json_pack("{s:s, s:s, s:s, s:s}", "idToken", idt, "factorId", "totp", "sessionInfo",
                           session_info, "verificationCode", far),
                 &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
    CHECKF(tu_int(r, "error.details.attemptsLeft", -1) == 4, "%s", tu_dump(r));
    json_decref(r);

    r = tu_callj(g_e, "mfaEnrollFinalize",
                 json_pack("{s:s, s:s, s:s, s:s, s:s}", "idToken", idt, "factorId", "totp",
                           "sessionInfo", session_info, "verificationCode", code0, "displayName",
                           "Authenticator"),
                 &st);
    if (!EXPECT_OK(r, st)) {
        json_decref(r);
        return;
    }
    json_t *f = factor_of(tu_get(r, "user"), "totp");
    char factor_uid[256];
    copy(factor_uid, sizeof factor_uid, tu_str(f, "uid"));
    CHECKF(factor_uid[0] && str_is(f, "displayName", "Authenticator") && !tu_get(f, "phoneNumber"),
           "%s", tu_dump(r));
    json_t *c = claims_of(tu_str(r, "idToken"));
    CHECKF(str_is(c, "claims.firebase.sign_in_second_factor", "totp"), "%s", tu_dump(c));
    json_decref(c);
    json_decref(r);

    /* the sessionInfo is spent */
    r = tu_callj(g_e, "mfaEnrollFinalize",
                 json_pack("{s:s, s:s, s:s, s:s}", "idToken", idt, "factorId", "totp", "sessionInfo",
                           session_info, "verificationCode", code1),
                 &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_MULTI_FACTOR_SESSION, "invalidMultiFactorSession");
    json_decref(r);

    r = sign_in(PHONE_T, CODE_T, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_SECOND_FACTOR_REQUIRED, "secondFactorRequired");
    json_t *hint = json_array_get(tu_get(r, "error.details.hints"), 0);
    CHECKF(str_is(hint, "uid", factor_uid) && str_is(hint, "factorId", "totp") &&
               !tu_get(hint, "phoneNumber"),
           "%s", tu_dump(r));
    char session[512];
    copy(session, sizeof session, tu_str(r, "error.details.session"));
    json_decref(r);

    /* the code that completed the enrolment was accepted once for this factor already */
    r = resolve_totp(session, factor_uid, code0, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
    json_decref(r);

    r = resolve_totp(session, factor_uid, code1, &st);
    if (EXPECT_OK(r, st)) {
        CHECKF(str_is(r, "user.uid", uid), "%s", tu_dump(r));
        c = claims_of(tu_str(r, "idToken"));
        CHECKF(str_is(c, "claims.firebase.sign_in_second_factor", "totp") &&
                   str_is(c, "claims.firebase.second_factor_identifier", factor_uid),
               "%s", tu_dump(c));
        json_decref(c);
    }
    json_decref(r);

    /* the same code replayed, in a new session: refused */
    r = sign_in(PHONE_T, CODE_T, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_SECOND_FACTOR_REQUIRED, "secondFactorRequired");
    copy(session, sizeof session, tu_str(r, "error.details.session"));
    json_decref(r);
    r = resolve_totp(session, factor_uid, code1, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
    CHECKF(!tu_get(r, "idToken"), "%s", tu_dump(r));
    json_decref(r);
}

/* ---- linking and temporary proofs ----------------------------------------------------------- */

static void test_linking(void) {
    int st;
    json_t *r = tu_call(g_e, "createCustomToken", "{\"uid\": \"host-mfa-1\"}", &st);
    EXPECT_OK(r, st);
    json_t *s = tu_callj(g_e, "signInWithCustomToken",
                         json_pack("{s:s?}", "customToken", tu_str(r, "customToken")), &st);
    json_decref(r);
    if (!EXPECT_OK(s, st)) {
        json_decref(s);
        return;
    }
    CHECKF(str_is(s, "user.uid", "host-mfa-1") && json_is_null(tu_get(s, "user.phoneNumber")), "%s",
           tu_dump(s));
    char idt[4096];
    copy(idt, sizeof idt, tu_str(s, "idToken"));
    json_decref(s);

    /* P's number: refused, with a proof that signs in to P */
    r = call_cred("linkWithCredential", idt, credential_for(PHONE_P, CODE_P), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_CREDENTIAL_ALREADY_IN_USE, "credentialAlreadyInUse");
    char proof[1024];
    copy(proof, sizeof proof, tu_str(r, "error.details.temporaryProof"));
    CHECKF(proof[0] && is_rfc3339_utc(tu_str(r, "error.details.expiresAt")), "%s", tu_dump(r));
    CHECKF(!proof[0] || !strstr(tu_errmsg(r), proof), "the message must not carry the proof");
    CHECKF(str_is(r, "error.details.phoneNumber", PHONE_P), "the number the code proved: %s", tu_dump(r));
    json_decref(r);

    /* a free number links */
    r = call_cred("linkWithCredential", idt, credential_for(PHONE_FREE, CODE_FREE), &st);
    if (EXPECT_OK(r, st)) {
        CHECKF(str_is(r, "user.uid", "host-mfa-1") && str_is(r, "user.phoneNumber", PHONE_FREE) &&
                   str_is(r, "additionalUserInfo.providerId", "phone"),
               "%s", tu_dump(r));
        json_t *c = claims_of(tu_str(r, "idToken"));
        CHECKF(str_is(c, "claims.phone_number", PHONE_FREE), "%s", tu_dump(c));
        json_decref(c);
    }
    json_decref(r);
    r = tu_callj(g_e, "getUserByPhoneNumber", json_pack("{s:s}", "phoneNumber", PHONE_FREE), &st);
    EXPECT_OK(r, st);
    CHECKF(str_is(r, "user.uid", "host-mfa-1"), "%s", tu_dump(r));
    json_decref(r);
    r = call_cred("linkWithCredential", idt, credential_for(PHONE_NOBODY, CODE_NOBODY), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_PROVIDER_ALREADY_LINKED, "providerAlreadyLinked");
    json_decref(r);

    /* the proof: once */
    if (!proof[0]) return;
    json_t *cred = json_pack("{s:s}", "temporaryProof", proof);
    r = tu_callj(g_e, "signInWithCredential", json_pack("{s:O}", "credential", cred), &st);
    EXPECT_OK(r, st);
    CHECKF(str_is(r, "user.uid", g_uid_p) && tu_str(r, "idToken") &&
               str_is(r, "user.phoneNumber", PHONE_P),
           "%s", tu_dump(r));
    char first_session[1024];
    snprintf(first_session, sizeof first_session, "%s", tu_str(r, "refreshToken") ? tu_str(r, "refreshToken") : "");
    json_decref(r);
    /* presented again within signInRetrySeconds, a retry: that same session, no other */
    r = tu_callj(g_e, "signInWithCredential", json_pack("{s:O}", "credential", cred), &st);
    EXPECT_OK(r, st);
    CHECKF(first_session[0] && str_is(r, "refreshToken", first_session), "proof reused: %d %s", st, tu_dump(r));
    json_decref(r);
    json_decref(cred);
}

/* ---- re-authentication ---------------------------------------------------------------------- */

static void test_reauthenticate(void) {
    int st;
    json_t *c = claims_of(g_idt_p);
    long long auth_time = tu_int(c, "claims.auth_time", -1);
    json_decref(c);

    /* a number nobody has, and one of another user (host-mfa-1, linked above) */
    json_t *r = call_cred("reauthenticateWithCredential", g_idt_p,
                          credential_for(PHONE_NOBODY, CODE_NOBODY), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_MISMATCH, "userMismatch");
    json_decref(r);
    r = call_cred("reauthenticateWithCredential", g_idt_p, credential_for(PHONE_FREE, CODE_FREE), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_MISMATCH, "userMismatch");
    json_decref(r);

    tu_sleep_ms(1100); /* auth_time has a one-second resolution */
    r = call_cred("reauthenticateWithCredential", g_idt_p, credential_for(PHONE_P, CODE_P), &st);
    if (EXPECT_OK(r, st)) {
        CHECKF(str_is(r, "user.uid", g_uid_p), "%s", tu_dump(r));
        c = claims_of(tu_str(r, "idToken"));
        CHECKF(tu_int(c, "claims.auth_time", -1) > auth_time, "new auth_time (was %lld): %s", auth_time,
               tu_dump(c));
        json_decref(c);
    }
    json_decref(r);
}

/* ---- bad input ------------------------------------------------------------------------------ */

static const char *k_new_methods[] = {
    "mfaEnrollStart",     "mfaEnrollFinalize", "mfaTotpStart",
    "mfaUnenroll",        "mfaResolveSignIn",  "linkWithCredential",
    "updatePhoneNumber",  "reauthenticateWithCredential", "unlink",
};
#define N_NEW (sizeof k_new_methods / sizeof k_new_methods[0])

static int mentions(json_t *r, const char *word) {
    return strstr(tu_errmsg(r), word) || strstr(tu_dump(tu_get(r, "error.details")), word);
}

#define EXPECT_CALL_ERR(method, params, want_status, want_code)                                \
    do {                                                                                         \
        int st_;                                                                                 \
        json_t *r_ = tu_call(g_e, (method), (params), &st_);                                     \
        EXPECT_ERR(r_, st_, (want_status), (want_code));                                         \
        json_decref(r_);                                                                         \
    } while (0)

static void test_bad_input(void) {
    char p[8192];
    for (size_t i = 0; i < N_NEW; i++) {
        const char *m = k_new_methods[i];
        int resolve = strcmp(m, "mfaResolveSignIn") == 0;
        const char *key = resolve ? "session" : "idToken";
        int st;

        char *out = NULL;
        st = phoneauth_call(NULL, m, "{}", &out);
        json_t *r = tu_parse_out(st, out);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        json_decref(r);

        /* NULL params mean {}: the first required field is missing */
        r = tu_call(g_e, m, NULL, &st);
        if (resolve) {
            EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_MULTI_FACTOR_SESSION, "missingMultiFactorSession");
        } else {
            EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
            CHECKF(mentions(r, "idToken"), "%s(NULL) should name idToken: %s", m, tu_dump(r));
        }
        json_decref(r);

        EXPECT_CALL_ERR(m, "{", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        EXPECT_CALL_ERR(m, "{\"idToken\": \"x\",}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        EXPECT_CALL_ERR(m, "[]", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        EXPECT_CALL_ERR(m, "\"x\"", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        CHECKF(phoneauth_call(g_e, m, "{", NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT, "%s, NULL out", m);

        /* a wrong type, and an unknown field beside a valid token */
        snprintf(p, sizeof p, "{\"%s\": 5}", key);
        r = tu_call(g_e, m, p, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        CHECKF(mentions(r, key), "%s: the error should name %s: %s", m, key, tu_dump(r));
        json_decref(r);
        snprintf(p, sizeof p, "{\"%s\": \"%s\", \"bogusField\": 1}", key, resolve ? "s" : g_idt_p);
        r = tu_call(g_e, m, p, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        CHECKF(mentions(r, "bogusField"), "%s: the error should name bogusField: %s", m, tu_dump(r));
        json_decref(r);
    }

    /* fields past the first, with P's valid token */
    const char *idt = g_idt_p;
    int st;
    json_t *r = tu_callj(g_e, "mfaEnrollStart", json_pack("{s:s}", "idToken", idt), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_PHONE_NUMBER, "missingPhoneNumber");
    json_decref(r);
    r = tu_callj(g_e, "mfaEnrollStart", json_pack("{s:s, s:i}", "idToken", idt, "phoneNumber", 5), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);
    r = enroll_start(idt, "abc", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_PHONE_NUMBER, "invalidPhoneNumber");
    json_decref(r);
    r = enroll_start("a.b.c", PHONE_NOBODY, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ID_TOKEN, "invalidIdToken");
    json_decref(r);

    const char *no_cred[] = {"mfaEnrollFinalize", "linkWithCredential", "updatePhoneNumber",
                             "reauthenticateWithCredential"};
    for (size_t i = 0; i < sizeof no_cred / sizeof no_cred[0]; i++) {
        r = tu_callj(g_e, no_cred[i], json_pack("{s:s}", "idToken", idt), &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_CREDENTIAL, "invalidCredential");
        json_decref(r);
        r = tu_callj(g_e, no_cred[i], json_pack("{s:s, s:s}", "idToken", idt, "credential", "x"), &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_CREDENTIAL, "invalidCredential");
        json_decref(r);
        r = tu_callj(g_e, no_cred[i],
                     json_pack("{s:s, s:{s:s, s:s, s:i}}", "idToken", idt, "credential", "verificationId",
                               "x", "verificationCode", "123456", "credExtra", 1),
                     &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        CHECKF(mentions(r, "credExtra"), "%s: %s", no_cred[i], tu_dump(r));
        json_decref(r);
    }

    /* mfaEnrollFinalize, TOTP kind */
    r = tu_callj(g_e, "mfaEnrollFinalize",
                 json_pack("{s:s, s:s, s:s, s:s}", "idToken", idt, "factorId", "email", "sessionInfo", "x",
                           "verificationCode", "123456"),
                 &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);
    r = tu_callj(g_e, "mfaEnrollFinalize",
                 json_pack("{s:s, s:s, s:s, s:s}", "idToken", idt, "factorId", "totp", "sessionInfo",
                           "no-such-session", "verificationCode", "123456"),
                 &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_MULTI_FACTOR_SESSION, "invalidMultiFactorSession");
    json_decref(r);
    json_t *t = tu_callj(g_e, "mfaTotpStart", json_pack("{s:s}", "idToken", idt), &st);
    EXPECT_OK(t, st);
    r = tu_callj(g_e, "mfaEnrollFinalize",
                 json_pack("{s:s, s:s, s:s?}", "idToken", idt, "factorId", "totp", "sessionInfo",
                           tu_str(t, "sessionInfo")),
                 &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_VERIFICATION_CODE, "missingVerificationCode");
    json_decref(r);
    r = tu_callj(g_e, "mfaEnrollFinalize",
                 json_pack("{s:s, s:s, s:s?, s:i}", "idToken", idt, "factorId", "totp", "sessionInfo",
                           tu_str(t, "sessionInfo"), "verificationCode", 123456),
                 &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);
    json_decref(t);

    /* mfaUnenroll, unlink */
    r = tu_callj(g_e, "mfaUnenroll", json_pack("{s:s}", "idToken", idt), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    CHECKF(mentions(r, "enrollmentId"), "%s", tu_dump(r));
    json_decref(r);
    r = unenroll(idt, "no-such-factor", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MULTI_FACTOR_INFO_NOT_FOUND, "multiFactorInfoNotFound");
    json_decref(r);
    r = tu_callj(g_e, "unlink", json_pack("{s:s}", "idToken", idt), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);
    r = tu_callj(g_e, "unlink", json_pack("{s:s, s:s}", "idToken", idt, "providerId", "password"), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_NO_SUCH_PROVIDER, "noSuchProvider");
    json_decref(r);

    /* mfaResolveSignIn's assertion */
    EXPECT_CALL_ERR("mfaResolveSignIn", "{\"session\": \"\"}",
                    PHONEAUTH_ERR_MISSING_MULTI_FACTOR_SESSION, "missingMultiFactorSession");
    EXPECT_CALL_ERR("mfaResolveSignIn", "{\"session\": \"s\", \"assertion\": \"x\"}",
                    PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    EXPECT_CALL_ERR("mfaResolveSignIn", "{\"session\": \"s\", \"assertion\": {\"factorId\": \"email\"}}",
                    PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    EXPECT_CALL_ERR("mfaResolveSignIn",
                    "{\"session\": \"s\", \"assertion\": {\"factorId\": \"totp\", \"enrollmentId\": \"e\", "
                    "\"verificationCode\": \"123456\", \"assertExtra\": 1}}",
                    PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    EXPECT_CALL_ERR("mfaResolveSignIn",
                    "{\"session\": \"no-such-session\", \"assertion\": {\"factorId\": \"totp\", "
                    "\"enrollmentId\": \"e\", \"verificationCode\": \"123456\"}}",
                    PHONEAUTH_ERR_INVALID_MULTI_FACTOR_SESSION, "invalidMultiFactorSession");

    /* verifyPhoneNumber's new fields; a temporary proof of the wrong type */
    EXPECT_CALL_ERR("verifyPhoneNumber", "{\"multiFactorHint\": 5, \"multiFactorSession\": \"s\"}",
                    PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    EXPECT_CALL_ERR("verifyPhoneNumber", "{\"multiFactorHint\": \"h\", \"multiFactorSession\": []}",
                    PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    EXPECT_CALL_ERR("signInWithCredential", "{\"credential\": {\"temporaryProof\": 5}}",
                    PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    r = tu_call(g_e, "signInWithCredential", "{\"credential\": {\"temporaryProof\": \"junk\"}}", &st);
    CHECKF(st != PHONEAUTH_OK && !tu_get(r, "idToken"), "a junk proof: %d %s", st, tu_dump(r));
    json_decref(r);
}

int main(void) {
    test_totp_helper();
    char *dir = tu_tmpdir();
    g_e = tu_open(dir, "mfa", CONFIG);
    if (g_e) {
        int st;
        json_t *r = sign_in(PHONE_P, CODE_P, &st);
        if (EXPECT_OK(r, st)) {
            copy(g_uid_p, sizeof g_uid_p, tu_str(r, "user.uid"));
            copy(g_idt_p, sizeof g_idt_p, tu_str(r, "idToken"));
        }
        json_decref(r);
        test_bad_input();
        test_phone_factor();
        test_totp();
        test_linking();
        test_reauthenticate();
    }
    phoneauth_close(g_e);
    tu_rmtree(dir);
    free(dir);
    return tu_finish();
}
