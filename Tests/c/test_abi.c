/* test_abi.c: version functions, strerror for every status of the header, free(NULL), close(NULL). */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

static const struct {
    int status;
    const char *code;
} k_statuses[] = {
    {PHONEAUTH_ERR_INVALID_CUSTOM_TOKEN, "invalidCustomToken"},
    {PHONEAUTH_ERR_CUSTOM_TOKEN_MISMATCH, "customTokenMismatch"},
    {PHONEAUTH_ERR_INVALID_CREDENTIAL, "invalidCredential"},
    {PHONEAUTH_ERR_USER_DISABLED, "userDisabled"},
    {PHONEAUTH_ERR_OPERATION_NOT_ALLOWED, "operationNotAllowed"},
    {PHONEAUTH_ERR_TOO_MANY_REQUESTS, "tooManyRequests"},
    {PHONEAUTH_ERR_USER_NOT_FOUND, "userNotFound"},
    {PHONEAUTH_ERR_INVALID_USER_TOKEN, "invalidUserToken"},
    {PHONEAUTH_ERR_USER_TOKEN_EXPIRED, "userTokenExpired"},
    {PHONEAUTH_ERR_MISSING_PHONE_NUMBER, "missingPhoneNumber"},
    {PHONEAUTH_ERR_INVALID_PHONE_NUMBER, "invalidPhoneNumber"},
    {PHONEAUTH_ERR_MISSING_VERIFICATION_CODE, "missingVerificationCode"},
    {PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode"},
    {PHONEAUTH_ERR_MISSING_VERIFICATION_ID, "missingVerificationID"},
    {PHONEAUTH_ERR_INVALID_VERIFICATION_ID, "invalidVerificationID"},
    {PHONEAUTH_ERR_SESSION_EXPIRED, "sessionExpired"},
    {PHONEAUTH_ERR_QUOTA_EXCEEDED, "quotaExceeded"},
    {PHONEAUTH_ERR_APP_NOT_VERIFIED, "appNotVerified"},
    {PHONEAUTH_ERR_SECOND_FACTOR_REQUIRED, "secondFactorRequired"},
    {PHONEAUTH_ERR_INTERNAL, "internalError"},
    {PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument"},
    {PHONEAUTH_ERR_INVALID_CONFIGURATION, "invalidConfiguration"},
    {PHONEAUTH_ERR_UNKNOWN_METHOD, "unknownMethod"},
    {PHONEAUTH_ERR_STORAGE, "storageError"},
    {PHONEAUTH_ERR_INVALID_ID_TOKEN, "invalidIdToken"},
    {PHONEAUTH_ERR_ID_TOKEN_REVOKED, "idTokenRevoked"},
    {PHONEAUTH_ERR_PHONE_NUMBER_EXISTS, "phoneNumberAlreadyExists"},
    {PHONEAUTH_ERR_UID_EXISTS, "uidAlreadyExists"},
};

static void test_version(void) {
    const char *v = phoneauth_version();
    CHECK(v != NULL);
    CHECKF(v && strcmp(v, PHONEAUTH_VERSION) == 0, "library %s, header %s", v ? v : "NULL",
           PHONEAUTH_VERSION);
    CHECK(phoneauth_version() == v); /* static text: the same pointer every time */
    CHECKF(phoneauth_abi_version() == PHONEAUTH_ABI_VERSION, "library %d, header %d",
           phoneauth_abi_version(), PHONEAUTH_ABI_VERSION);

    /* The header's two version macros agree with each other. */
    int major = -1, minor = -1, patch = -1;
    CHECK(sscanf(PHONEAUTH_VERSION, "%d.%d.%d", &major, &minor, &patch) == 3);
    CHECK(PHONEAUTH_VERSION_NUMBER == major * 1000000 + minor * 1000 + patch);
}

static void test_strerror(void) {
    size_t n = sizeof k_statuses / sizeof k_statuses[0];
    for (size_t i = 0; i < n; i++) {
        const char *s = phoneauth_strerror(k_statuses[i].status);
        size_t len = strlen(k_statuses[i].code);
        CHECKF(s != NULL && strncmp(s, k_statuses[i].code, len) == 0 && s[len] == ':',
               "strerror(%d) = %s, want \"%s: ...\"", k_statuses[i].status, s ? s : "NULL",
               k_statuses[i].code);
        CHECKF(s && strlen(s) > len + 2, "strerror(%d) has no text after the code",
               k_statuses[i].status);
        CHECK(phoneauth_strerror(k_statuses[i].status) == s); /* static */
    }
    /* Distinct texts for distinct statuses. */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const char *a = phoneauth_strerror(k_statuses[i].status);
            const char *b = phoneauth_strerror(k_statuses[j].status);
            if (a && b && strcmp(a, b) == 0)
                CHECKF(0, "statuses %d and %d share the text %s", k_statuses[i].status,
                       k_statuses[j].status, a);
        }
    /* OK and numbers that are not statuses still give text. */
    const int others[] = {PHONEAUTH_OK, -1, 1, 12345, 17000, 19999, 2147483647, -2147483647 - 1};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        const char *s = phoneauth_strerror(others[i]);
        CHECKF(s != NULL && *s, "strerror(%d) is NULL or empty", others[i]);
    }
}

static void test_null_handles(void) {
    phoneauth_free(NULL);
    phoneauth_close(NULL);
    CHECK(1); /* reached without crashing */
}

/* A string the library returns is freed with phoneauth_free, whatever its size. */
static void test_free_outputs(void) {
    char *dir = tu_tmpdir();
    phoneauth_engine *e = tu_open(dir, "abi", NULL);
    if (e) {
        for (int i = 0; i < 50; i++) {
            char *out = NULL;
            int st = phoneauth_call(e, "getJwks", NULL, &out);
            CHECKF(st == PHONEAUTH_OK && out != NULL, "getJwks: %d %s", st, out ? out : "NULL");
            phoneauth_free(out);
        }
        int st;
        json_t *jwks = tu_call(e, "getJwks", NULL, &st);
        EXPECT_OK(jwks, st);
        json_t *keys = tu_get(jwks, "keys");
        CHECKF(json_is_array(keys) && json_array_size(keys) >= 1, "%s", tu_dump(jwks));
        json_t *k = json_array_get(keys, 0);
        CHECKF(tu_str(k, "kid") && tu_str(k, "kty") && tu_str(k, "alg") && tu_str(k, "use") &&
                   strcmp(tu_str(k, "use"), "sig") == 0 && strcmp(tu_str(k, "alg"), "ES256") == 0,
               "%s", tu_dump(k));
        /* no private parts in a public JWK */
        CHECKF(!tu_get(k, "d") && !tu_get(k, "p") && !tu_get(k, "q"), "%s", tu_dump(k));
        json_decref(jwks);
    }
    phoneauth_close(e);
    tu_rmtree(dir);
    free(dir);
}

int main(void) {
    test_version();
    test_strerror();
    test_null_handles();
    test_free_outputs();
    return tu_finish();
}
