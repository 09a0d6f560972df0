/* test_bad_input.c: every kind of bad input comes back as an error object, never a crash. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static phoneauth_engine *g_e;

typedef int (*wrapper_fn)(phoneauth_engine *, const char *, char **);
static const struct {
    const char *name;
    wrapper_fn fn;
} k_wrappers[] = {
    {"verifyPhoneNumber", phoneauth_verify_phone_number},
    {"credential", phoneauth_credential},
    {"signInWithCredential", phoneauth_sign_in_with_credential},
    {"signOut", phoneauth_sign_out},
    {"mfaResolveSignIn", phoneauth_mfa_resolve_sign_in},
    {"startPasskeyEnrollment", phoneauth_start_passkey_enrollment},
    {"finishPasskeyEnrollment", phoneauth_finish_passkey_enrollment},
    {"startPasskeySignIn", phoneauth_start_passkey_sign_in},
    {"finishPasskeySignIn", phoneauth_finish_passkey_sign_in},
};
#define N_WRAPPERS (sizeof k_wrappers / sizeof k_wrappers[0])

/* Every method of docs/API.md. */
static const char *k_methods[] = {
    "verifyPhoneNumber", "credential",   "signInWithCredential", "refreshIdToken",
    "verifyIdToken",     "signOut",      "getUser",              "getUserByPhoneNumber",
    "deleteUser",        "updateUser",   "revokeRefreshTokens",  "getJwks",
    "getVerificationStatus", "createCustomToken", "signInWithCustomToken", "setCustomUserClaims",
    "listUsers",         "linkWithCredential", "updatePhoneNumber", "reauthenticateWithCredential",
    "unlink",            "mfaEnrollStart", "mfaTotpStart",      "mfaEnrollFinalize",
    "mfaUnenroll",       "mfaResolveSignIn", "verifyClient",    "canHandleNotification",
    "getCaptchaChallenge", "canHandleURL", "startPasskeyEnrollment", "finishPasskeyEnrollment",
    "startPasskeySignIn", "finishPasskeySignIn", "listPasskeys", "deletePasskey",
};
#define N_METHODS (sizeof k_methods / sizeof k_methods[0])

/* Runs method with params; expects the error (status, code). */
#define EXPECT_CALL_ERR(method, params, want_status, want_code)                  \
    do {                                                                           \
        int st_;                                                                   \
        json_t *r_ = tu_call(g_e, (method), (params), &st_);                       \
        EXPECT_ERR(r_, st_, (want_status), (want_code));                           \
        json_decref(r_);                                                           \
    } while (0)

/* The error's message or details mention `word`. */
static int error_mentions(json_t *res, const char *word) {
    if (strstr(tu_errmsg(res), word)) return 1;
    return strstr(tu_dump(tu_get(res, "error.details")), word) != NULL;
}

static void test_null_engine(void) {
    for (size_t i = 0; i < N_METHODS; i++) {
        int st;
        char *out = NULL;
        st = phoneauth_call(NULL, k_methods[i], "{}", &out);
        json_t *r = tu_parse_out(st, out);
        CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT, "call(NULL, %s) -> %d", k_methods[i], st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        json_decref(r);
    }
    for (size_t i = 0; i < N_WRAPPERS; i++) {
        char *out = NULL;
        int st = k_wrappers[i].fn(NULL, "{}", &out);
        json_t *r = tu_parse_out(st, out);
        CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT, "%s wrapper with NULL engine -> %d",
               k_wrappers[i].name, st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        json_decref(r);
        /* NULL engine and NULL out_json together */
        st = k_wrappers[i].fn(NULL, NULL, NULL);
        CHECK(st == PHONEAUTH_ERR_INVALID_ARGUMENT);
    }
    CHECK(phoneauth_call(NULL, NULL, NULL, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_set_sms_sender(NULL, tu_sms_sender, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_set_sms_sender(NULL, NULL, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
}

static void test_method_names(void) {
    int st;
    json_t *r;

    r = tu_call(g_e, NULL, "{}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);
    r = tu_call(g_e, "", "{}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);

    r = tu_call(g_e, "noSuchMethod", "{}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_UNKNOWN_METHOD, "unknownMethod");
    const char *m = tu_str(r, "error.details.method");
    CHECKF(m && strcmp(m, "noSuchMethod") == 0, "details.method: %s", tu_dump(r));
    json_decref(r);

    /* case matters; no whitespace trimming; no prefix matching */
    const char *near[] = {"VerifyPhoneNumber", "verifyphonenumber", " verifyPhoneNumber",
                          "verifyPhoneNumber ", "verify", "verifyPhoneNumberX", "phoneauth_call"};
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        r = tu_call(g_e, near[i], "{\"phoneNumber\": \"+16505553434\"}", &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_UNKNOWN_METHOD, "unknownMethod");
        json_decref(r);
    }

    /* invalid UTF-8 in the method name: an error, either kind */
    r = tu_call(g_e, "verify\xff\xfePhoneNumber", "{}", &st);
    CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT || st == PHONEAUTH_ERR_UNKNOWN_METHOD, "%d %s", st,
           tu_dump(r));
    json_decref(r);

    /* a very long method name */
    size_t n = 100000;
    char *longname = malloc(n + 1);
    memset(longname, 'a', n);
    longname[n] = 0;
    r = tu_call(g_e, longname, "{}", &st);
    CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT || st == PHONEAUTH_ERR_UNKNOWN_METHOD, "%d", st);
    json_decref(r);
    free(longname);
}

static void test_null_params(void) {
    /* NULL means {} */
    EXPECT_CALL_ERR("verifyPhoneNumber", NULL, PHONEAUTH_ERR_MISSING_PHONE_NUMBER,
                    "missingPhoneNumber");
    EXPECT_CALL_ERR("verifyPhoneNumber", "{}", PHONEAUTH_ERR_MISSING_PHONE_NUMBER,
                    "missingPhoneNumber");
    EXPECT_CALL_ERR("verifyPhoneNumber", "{\"phoneNumber\": \"\"}",
                    PHONEAUTH_ERR_MISSING_PHONE_NUMBER, "missingPhoneNumber");
    EXPECT_CALL_ERR("credential", "{\"verificationCode\": \"123456\"}",
                    PHONEAUTH_ERR_MISSING_VERIFICATION_ID, "missingVerificationID");
    EXPECT_CALL_ERR("credential", "{\"verificationId\": \"abc\"}",
                    PHONEAUTH_ERR_MISSING_VERIFICATION_CODE, "missingVerificationCode");
    EXPECT_CALL_ERR("credential", "{\"verificationId\": \"\", \"verificationCode\": \"123456\"}",
                    PHONEAUTH_ERR_MISSING_VERIFICATION_ID, "missingVerificationID");
    EXPECT_CALL_ERR("credential", "{\"verificationId\": \"abc\", \"verificationCode\": \"\"}",
                    PHONEAUTH_ERR_MISSING_VERIFICATION_CODE, "missingVerificationCode");
    int st;
    json_t *r = tu_call(g_e, "credential", NULL, &st);
    CHECKF(st == PHONEAUTH_ERR_MISSING_VERIFICATION_ID ||
               st == PHONEAUTH_ERR_MISSING_VERIFICATION_CODE,
           "credential(NULL): %d %s", st, tu_dump(r));
    json_decref(r);

    /* the typed wrappers treat NULL the same */
    char *out = NULL;
    st = phoneauth_verify_phone_number(g_e, NULL, &out);
    r = tu_parse_out(st, out);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_PHONE_NUMBER, "missingPhoneNumber");
    json_decref(r);

    /* methods with a required parameter other than the Firebase "missing*" ones */
    const char *required[][2] = {{"refreshIdToken", "refreshToken"}, {"verifyIdToken", "idToken"},
                                 {"signOut", "refreshToken"},        {"getUser", "uid"},
                                 {"deleteUser", "uid"},              {"updateUser", "uid"},
                                 {"revokeRefreshTokens", "uid"},
                                 {"getVerificationStatus", "verificationId"}};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        r = tu_call(g_e, required[i][0], NULL, &st);
        CHECKF(st != PHONEAUTH_OK, "%s(NULL) succeeded: %s", required[i][0], tu_dump(r));
        json_decref(r);
    }
    r = tu_call(g_e, "signOut", NULL, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    CHECKF(error_mentions(r, "refreshToken"), "signOut(NULL) should name refreshToken: %s",
           tu_dump(r));
    json_decref(r);
    r = tu_call(g_e, "getUser", NULL, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    CHECKF(error_mentions(r, "uid"), "getUser(NULL) should name uid: %s", tu_dump(r));
    json_decref(r);

    /* getJwks takes no parameters: NULL and {} both succeed */
    r = tu_call(g_e, "getJwks", NULL, &st);
    EXPECT_OK(r, st);
    json_decref(r);
    r = tu_call(g_e, "getJwks", "{}", &st);
    EXPECT_OK(r, st);
    json_decref(r);
}

static void test_null_out(void) {
    /* out_json NULL: the status still comes back, nothing crashes */
    CHECK(phoneauth_call(g_e, "verifyPhoneNumber", NULL, NULL) == PHONEAUTH_ERR_MISSING_PHONE_NUMBER);
    CHECK(phoneauth_call(g_e, "noSuchMethod", "{}", NULL) == PHONEAUTH_ERR_UNKNOWN_METHOD);
    CHECK(phoneauth_call(g_e, "getJwks", "{}", NULL) == PHONEAUTH_OK);
    CHECK(phoneauth_call(g_e, "verifyPhoneNumber", "{", NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_call(g_e, NULL, NULL, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < N_WRAPPERS; i++) {
        int st = k_wrappers[i].fn(g_e, "[]", NULL);
        CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT, "%s([], NULL) -> %d", k_wrappers[i].name, st);
    }
    /* a test-number verification succeeds with out_json NULL (its result is simply dropped) */
    CHECK(phoneauth_verify_phone_number(g_e, "{\"phoneNumber\": \"+16505551234\"}", NULL) ==
          PHONEAUTH_OK);
}

static void test_malformed_json(void) {
    const char *bad[] = {
        "{",
        "{\"phoneNumber\": }",
        "{\"phoneNumber\": \"+16505553434\",}",
        "{'phoneNumber': '+16505553434'}",
        "{\"phoneNumber\": \"+16505553434\"} trailing",
        "{\"phoneNumber\": \"+1650555\n3434\"}",
        "",
        "   ",
        "nul",
        "{\"a\": NaN}",
        "{\"phoneNumber\": \"\\ud800\"}", /* lone surrogate escape */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int st;
        json_t *r = tu_call(g_e, "verifyPhoneNumber", bad[i], &st);
        CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT, "params <%s> -> %d %s", bad[i], st, tu_dump(r));
        json_decref(r);
    }
    /* line and column in the message */
    int st;
    json_t *r = tu_call(g_e, "verifyPhoneNumber", "{\n  \"phoneNumber\": \"+16505553434\",\n  oops\n}",
                        &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    CHECKF(strstr(tu_errmsg(r), "line") && strstr(tu_errmsg(r), "column"),
           "message should carry line and column: %s", tu_errmsg(r));
    CHECKF(strstr(tu_errmsg(r), "3") != NULL, "the error is on line 3: %s", tu_errmsg(r));
    json_decref(r);

    /* an embedded NUL ends the C string: what is left is malformed */
    r = tu_call(g_e, "verifyPhoneNumber", "{\"phoneNumber\": \"+1650\0" "5553434\"}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);

    /* \u0000 inside a string */
    r = tu_call(g_e, "verifyPhoneNumber", "{\"phoneNumber\": \"+1650\\u00005553434\"}", &st);
    CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT || st == PHONEAUTH_ERR_INVALID_PHONE_NUMBER,
           "%d %s", st, tu_dump(r));
    json_decref(r);

    /* deep nesting (within the size limit) */
    size_t depth = 200000;
    char *deep = malloc(2 * depth + 64);
    size_t k = 0;
    k += (size_t)sprintf(deep, "{\"phoneNumber\": \"+16505553434\", \"x\": ");
    for (size_t i = 0; i < depth; i++) deep[k++] = '[';
    for (size_t i = 0; i < depth; i++) deep[k++] = ']';
    deep[k++] = '}';
    deep[k] = 0;
    r = tu_call(g_e, "verifyPhoneNumber", deep, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);
    free(deep);
}

static void test_not_an_object(void) {
    const char *bad[] = {"[]", "[{\"phoneNumber\": \"+16505553434\"}]", "\"+16505553434\"", "5",
                         "null", "true"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (size_t w = 0; w < N_WRAPPERS; w++) {
            char *out = NULL;
            int st = k_wrappers[w].fn(g_e, bad[i], &out);
            json_t *r = tu_parse_out(st, out);
            CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT, "%s(%s) -> %d %s", k_wrappers[w].name,
                   bad[i], st, tu_dump(r));
            json_decref(r);
        }
        int st;
        json_t *r = tu_call(g_e, "getJwks", bad[i], &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        json_decref(r);
    }
}

static void test_invalid_utf8(void) {
    const char *bad[] = {
        "{\"phoneNumber\": \"+1650\xff" "5553434\"}",
        "{\"phoneNumber\": \"+16505553434\", \"languageCode\": \"f\xc3\"}",
        "{\"phone\xe2\x82Number\": \"+16505553434\"}",
        "{\"phoneNumber\": \"+16505553434\", \"clientIp\": \"\xed\xa0\x80\"}", /* UTF-8 surrogate */
        "{\"phoneNumber\": \"\xc0\xaf\"}",                                  /* overlong */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int st;
        json_t *r = tu_call(g_e, "verifyPhoneNumber", bad[i], &st);
        CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT, "invalid UTF-8 #%zu -> %d %s", i, st,
               tu_dump(r));
        json_decref(r);
    }
}

static void test_huge(void) {
    /* 10 MB of valid JSON: rejected (documented limit 1 MiB) */
    size_t n = 10u * 1024u * 1024u;
    char *big = malloc(n + 64);
    int k = sprintf(big, "{\"phoneNumber\": \"+16505553434\", \"languageCode\": \"");
    memset(big + k, 'a', n);
    strcpy(big + k + n, "\"}");
    int st;
    json_t *r = tu_call(g_e, "verifyPhoneNumber", big, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);
    /* the same through a wrapper and with NULL out */
    char *out = NULL;
    st = phoneauth_credential(g_e, big, &out);
    r = tu_parse_out(st, out);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);
    CHECK(phoneauth_call(g_e, "verifyPhoneNumber", big, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);

    /* just over 1 MiB: rejected too */
    size_t over = 1024u * 1024u + 1;
    big[over] = 0;
    memset(big + k, 'a', over - (size_t)k);
    big[over - 2] = '"';
    big[over - 1] = '}';
    r = tu_call(g_e, "verifyPhoneNumber", big, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);
    free(big);

    /* a 10 MB configuration */
    char *cfg = malloc(n + 64);
    k = sprintf(cfg, "{\"database\": \"/tmp/never.db\", \"projectId\": \"");
    memset(cfg + k, 'p', n);
    strcpy(cfg + k + n, "\"}");
    char *err = NULL;
    phoneauth_engine *e = phoneauth_open(cfg, &err);
    CHECK(e == NULL);
    phoneauth_close(e);
    r = err ? json_loads(err, 0, NULL) : NULL;
    CHECKF(r && tu_int(r, "error.status", 0) > 0, "%s", err ? "(error not JSON)" : "no error_json");
    json_decref(r);
    phoneauth_free(err);
    free(cfg);
}

static void test_wrong_types(void) {
    int st;
    json_t *r;
    r = tu_call(g_e, "verifyPhoneNumber", "{\"phoneNumber\": 5}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    CHECKF(error_mentions(r, "phoneNumber"), "the error should name phoneNumber: %s", tu_dump(r));
    json_decref(r);

    const char *wrong[][2] = {
        {"verifyPhoneNumber", "{\"phoneNumber\": 16505553434}"},
        {"verifyPhoneNumber", "{\"phoneNumber\": [\"+16505553434\"]}"},
        {"verifyPhoneNumber", "{\"phoneNumber\": {\"n\": \"+16505553434\"}}"},
        {"verifyPhoneNumber", "{\"phoneNumber\": true}"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"+16505553434\", \"languageCode\": 7}"},
        {"credential", "{\"verificationId\": 1, \"verificationCode\": \"123456\"}"},
        {"credential", "{\"verificationId\": \"abc\", \"verificationCode\": 123456}"},
        {"refreshIdToken", "{\"refreshToken\": 1}"},
        {"verifyIdToken", "{\"idToken\": \"a.b.c\", \"checkRevoked\": \"yes\"}"},
        {"verifyIdToken", "{\"idToken\": 7}"},
        {"signOut", "{\"refreshToken\": []}"},
        {"getUser", "{\"uid\": 1}"},
        {"updateUser", "{\"uid\": \"u\", \"disabled\": \"no\"}"},
        {"getVerificationStatus", "{\"verificationId\": false}"},
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        r = tu_call(g_e, wrong[i][0], wrong[i][1], &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        json_decref(r);
    }

    /* credential that is not an object / has the wrong providerId: invalidCredential */
    const char *creds[] = {
        "{\"credential\": \"x\"}",
        "{\"credential\": 5}",
        "{\"credential\": [\"phone\"]}",
        "{\"credential\": {\"providerId\": \"password\", \"verificationId\": \"a\", "
        "\"verificationCode\": \"123456\"}}",
    };
    for (size_t i = 0; i < sizeof creds / sizeof creds[0]; i++) {
        char *out = NULL;
        st = phoneauth_sign_in_with_credential(g_e, creds[i], &out);
        r = tu_parse_out(st, out);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_CREDENTIAL, "invalidCredential");
        json_decref(r);
    }
    /* a credential whose verificationId is unknown */
    EXPECT_CALL_ERR("signInWithCredential",
                    "{\"credential\": {\"providerId\": \"phone\", \"verificationId\": \"nope\", "
                    "\"verificationCode\": \"123456\"}}",
                    PHONEAUTH_ERR_INVALID_VERIFICATION_ID, "invalidVerificationID");
    EXPECT_CALL_ERR("signInWithCredential",
                    "{\"credential\": {\"providerId\": \"phone\", \"verificationCode\": \"123456\"}}",
                    PHONEAUTH_ERR_MISSING_VERIFICATION_ID, "missingVerificationID");
}

static void test_unknown_fields(void) {
    const char *cases[][3] = {
        {"verifyPhoneNumber", "{\"phoneNumber\": \"+16505553434\", \"phoneNumbr\": \"x\"}",
         "phoneNumbr"},
        {"verifyPhoneNumber", "{\"phone\": \"+16505553434\"}", "phone"},
        {"credential", "{\"verificationId\": \"a\", \"verificationCode\": \"1\", \"extraField\": 1}",
         "extraField"},
        {"getJwks", "{\"kid\": \"x\"}", "kid"},
        {"signOut", "{\"refreshToken\": \"t\", \"everywhere\": true}", "everywhere"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        json_t *r = tu_call(g_e, cases[i][0], cases[i][1], &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
        CHECKF(error_mentions(r, cases[i][2]), "%s: the error should name %s: %s", cases[i][0],
               cases[i][2], tu_dump(r));
        json_decref(r);
    }
}

/* Secrets sent as keys, nested keys, method names, language codes or client addresses never come
 * back in an error object (nor in the configuration's errors): only plain names are quoted. */
static void test_nothing_echoed(void) {
    const char *secrets[] = {
        "MDFhMjA5Zjk4MDdjXzVFc1J0bFVtNlV2aFhBMQ.FzkCmLm4Vx8-LRmqKav2Ow.0.leWRGGODcR5EW9003P-QY7wb6ArpLjvwM_T65oAbykw",
        "4815162342hunter2", "p@ss w0rd!"};
    for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++) {
        const char *secret = secrets[i];
        json_t *calls[][2] = {
            {json_string("verifyPhoneNumber"), json_pack("{s:s, s:i}", "phoneNumber", "+16505551234", secret, 1)},
            {json_string("signInWithCredential"), json_pack("{s:{s:s, s:s}}", "credential", "verificationId", "x", secret, "y")},
            {json_string("getUser"), json_pack("{s:s, s:{s:i}}", "uid", "u", "extra", secret, 1)},
            {json_string(secret), json_object()},
            {json_string("verifyPhoneNumber"), json_pack("{s:s, s:s}", "phoneNumber", "+16505551234", "clientIp", secret)},
            {json_string("verifyPhoneNumber"), json_pack("{s:s}", "phoneNumber", secret)},
        };
        for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++) {
            int st;
            json_t *r = tu_callj(g_e, json_string_value(calls[k][0]), calls[k][1], &st);
            CHECKF(st != PHONEAUTH_OK, "call %zu with a secret succeeded", k);
            char *text = json_dumps(r, JSON_COMPACT);
            CHECKF(text && !strstr(text, secret), "call %zu echoes the secret: %s", k, text);
            free(text);
            json_decref(r);
            json_decref(calls[k][0]);
        }
        /* A secret language code is no error, and it is not echoed by the wrong code that follows. */
        int st;
        json_t *v = tu_callj(g_e, "verifyPhoneNumber", json_pack("{s:s, s:s}", "phoneNumber", "+16505551234", "languageCode", secret), &st);
        EXPECT_OK(v, st);
        json_t *r = tu_callj(g_e, "signInWithCredential",
                             json_pack("{s:{s:s, s:s}}", "credential", "verificationId", tu_str(v, "verificationId"),
                                       "verificationCode", "000000"), &st);
        char *text = json_dumps(r, JSON_COMPACT);
        CHECKF(st != PHONEAUTH_OK && text && !strstr(text, secret), "wrong code after a secret language: %s", text);
        free(text);
        json_decref(r);
        json_decref(v);
        /* The configuration: a secret as a key and as a nested key. */
        char *dir = tu_tmpdir();
        char db[512];
        snprintf(db, sizeof db, "%s/echo.db", dir);
        json_t *configs[] = {json_pack("{s:s, s:i}", "database", db, secret, 1),
                             json_pack("{s:s, s:{s:i}}", "database", db, "sms", secret, 1)};
        for (size_t k = 0; k < 2; k++) {
            char *config = json_dumps(configs[k], JSON_COMPACT);
            char *error = NULL;
            phoneauth_engine *e = phoneauth_open(config, &error);
            CHECKF(!e && error && !strstr(error, secret), "config %zu echoes the secret: %s", k, error ? error : "(none)");
            phoneauth_close(e);
            phoneauth_free(error);
            free(config);
            json_decref(configs[k]);
        }
        tu_rmtree(dir);
        free(dir);
    }
}

static void test_invalid_phone_numbers(void) {
    const char *cases[][2] = {
        {"abc", "notANumber"},
        {"+999123456", "invalidCountryCode"},
        {"+15555550100", "notValid"},
        {"+16505553434123456789", NULL},
        {"+1", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        json_t *r = tu_callj(g_e, "verifyPhoneNumber", json_pack("{s:s}", "phoneNumber", cases[i][0]),
                             &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_PHONE_NUMBER, "invalidPhoneNumber");
        const char *reason = tu_str(r, "error.details.reason");
        if (cases[i][1])
            CHECKF(reason && strcmp(reason, cases[i][1]) == 0, "%s: reason %s, want %s", cases[i][0],
                   reason ? reason : "NULL", cases[i][1]);
        else
            CHECKF(reason != NULL, "%s: no details.reason: %s", cases[i][0], tu_dump(r));
        /* the number is not echoed in the message */
        CHECKF(strlen(cases[i][0]) < 6 || !strstr(tu_errmsg(r), cases[i][0]),
               "message contains the phone number: %s", tu_errmsg(r));
        json_decref(r);
    }
}

/* After all this, the engine still works. */
static void test_still_works(void) {
    int st;
    json_t *v = tu_call(g_e, "verifyPhoneNumber", "{\"phoneNumber\": \"+16505551234\"}", &st);
    EXPECT_OK(v, st);
    json_t *c = tu_callj(g_e, "credential",
                         json_pack("{s:s?, s:s}", "verificationId", tu_str(v, "verificationId"),
                                   "verificationCode", "123456"),
                         &st);
    EXPECT_OK(c, st);
    json_t *r = tu_callj(g_e, "signInWithCredential",
                         json_pack("{s:O?}", "credential", tu_get(c, "credential")), &st);
    EXPECT_OK(r, st);
    json_decref(r);
    json_decref(c);
    json_decref(v);
}

static int streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* Whether the answer's field at `path` is the case's string `key`. */
static int same(json_t *r, const char *path, json_t *want, const char *key) {
    return streq(tu_str(r, path), json_string_value(json_object_get(want, key)));
}

/* Checks an answer against a case of Tests/refusals.json: the same code, number, message and
 * field as every other door (Python, phoneauthd, PhoneAuthKit) answers. */
static void expect_refusal(json_t *cases, const char *name, json_t *r, int st) {
    json_t *want = json_object_get(cases, name);
    CHECKF(want && st == json_integer_value(json_object_get(want, "status")), "%s: status %d", name, st);
    CHECKF(same(r, "error.code", want, "code"), "%s: %s", name, tu_dump(r));
    CHECKF(same(r, "error.message", want, "message"), "%s: %s", name, tu_dump(r));
    CHECKF(same(r, "error.details.field", want, "field"), "%s: %s", name, tu_dump(r));
    json_decref(r);
}

static char *repeated(char c, size_t n) {
    char *text = malloc(n + 1);
    memset(text, c, n);
    text[n] = 0;
    return text;
}

/* verifyPhoneNumber of a real-looking number with one more field. */
static json_t *verify_with(const char *key, json_t *value, int *st) {
    return tu_callj(g_e, "verifyPhoneNumber", json_pack("{s:s, s:o}", "phoneNumber", "+16505551234", key, value), st);
}

static void test_same_refusals(void) {
    json_error_t error;
    json_t *file = json_load_file(TESTS_DIR "/refusals.json", 0, &error);
    CHECKF(file != NULL, "Tests/refusals.json: %s", error.text);
    if (!file) return;
    json_t *cases = json_object_get(file, "cases");
    int st;
/* The call runs before its status is read (argument order is unspecified in C). */
#define REFUSED(name, call) do { json_t *r_ = (call); expect_refusal(cases, (name), r_, st); } while (0)
    char *name = repeated('x', 300), *token = repeated('t', 16385), *tag = repeated('a', 256);
    json_t *user = tu_call(g_e, "createUser", "{}", &st);
    EXPECT_OK(user, st);
    json_t *update = json_pack("{s:s?, s:s}", "uid", tu_str(user, "user.uid"), "displayName", name);
    REFUSED("longDisplayName", tu_callj(g_e, "updateUser", update, &st));
    REFUSED("longDisplayName", tu_callj(g_e, "createUser", json_pack("{s:s}", "displayName", name), &st));
    REFUSED("longCaptchaToken", verify_with("appVerification", json_pack("{s:s}", "captchaToken", token), &st));
    REFUSED("receiptWithoutSecret", verify_with("appVerification", json_pack("{s:s}", "receipt", "r"), &st));
    json_t *address = json_object_get(json_object_get(cases, "notAnAddress"), "value");
    REFUSED("notAnAddress", verify_with("clientIp", json_incref(address), &st));
    REFUSED("longLanguageCode", verify_with("languageCode", json_string(tag), &st));
    json_t *token_user = tu_call(g_e, "createCustomToken", "{\"uid\": \"totp-user\"}", &st);
    json_t *session = tu_callj(g_e, "signInWithCustomToken",
                               json_pack("{s:s?}", "customToken", tu_str(token_user, "customToken")), &st);
    EXPECT_OK(session, st);
    json_t *start = json_pack("{s:s?, s:s}", "idToken", tu_str(session, "idToken"), "accountName", name);
    REFUSED("longTotpAccountName", tu_callj(g_e, "mfaTotpStart", start, &st));
    json_decref(session);
    json_decref(token_user);
    json_decref(user);
    free(name);
    free(token);
    free(tag);
    json_decref(file);
#undef REFUSED
}

int main(void) {
    char *dir = tu_tmpdir();
    g_e = tu_open(dir, "bad", "{\"testPhoneNumbers\": {\"+16505551234\": \"123456\"}}");
    test_null_engine();
    if (g_e) {
        test_method_names();
        test_null_params();
        test_null_out();
        test_malformed_json();
        test_not_an_object();
        test_invalid_utf8();
        test_huge();
        test_wrong_types();
        test_unknown_fields();
        test_nothing_echoed();
        test_invalid_phone_numbers();
        test_same_refusals();
        test_still_works();
    }
    phoneauth_close(g_e);
    tu_rmtree(dir);
    free(dir);
    return tu_finish();
}
