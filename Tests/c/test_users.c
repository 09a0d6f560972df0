/* test_users.c: getUser, getUserByPhoneNumber, updateUser (disable), revokeRefreshTokens,
 * deleteUser, custom tokens. Users are made through test numbers (no SMS) and custom tokens. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static phoneauth_engine *g_e;
#define PHONE "+16505551234"

static json_t *sign_in(int *st) {
    json_t *v = tu_callj(g_e, "verifyPhoneNumber", json_pack("{s:s}", "phoneNumber", PHONE), st);
    json_t *c = tu_callj(g_e, "credential",
                         json_pack("{s:s?, s:s}", "verificationId", tu_str(v, "verificationId"),
                                   "verificationCode", "123456"),
                         st);
    json_t *r = tu_callj(g_e, "signInWithCredential",
                         json_pack("{s:O?}", "credential", tu_get(c, "credential")), st);
    json_decref(c);
    json_decref(v);
    return r;
}

static json_t *call_uid(const char *method, const char *uid, int *st) {
    return tu_callj(g_e, method, json_pack("{s:s}", "uid", uid), st);
}

int main(void) {
    char *dir = tu_tmpdir();
    g_e = tu_open(dir, "users", "{\"testPhoneNumbers\": {\"" PHONE "\": \"123456\"}}");
    if (!g_e) goto done;

    int st;
    json_t *r = sign_in(&st);
    if (!EXPECT_OK(r, st) || !CHECKF(tu_str(r, "user.uid"), "no user.uid: %s", tu_dump(r))) {
        json_decref(r);
        goto done;
    }
    char uid[256], rt[1024], idt[4096];
    snprintf(uid, sizeof uid, "%s", tu_str(r, "user.uid"));
    snprintf(rt, sizeof rt, "%s", tu_str(r, "refreshToken") ? tu_str(r, "refreshToken") : "");
    snprintf(idt, sizeof idt, "%s", tu_str(r, "idToken") ? tu_str(r, "idToken") : "");
    json_decref(r);

    /* getUser / getUserByPhoneNumber */
    r = call_uid("getUser", uid, &st);
    EXPECT_OK(r, st);
    CHECKF(tu_str(r, "user.uid") && strcmp(tu_str(r, "user.uid"), uid) == 0, "%s", tu_dump(r));
    CHECKF(tu_str(r, "user.phoneNumber") && strcmp(tu_str(r, "user.phoneNumber"), PHONE) == 0, "%s",
           tu_dump(r));
    CHECKF(tu_str(r, "user.tokensValidAfterTime") != NULL, "%s", tu_dump(r));
    json_decref(r);
    r = tu_callj(g_e, "getUserByPhoneNumber", json_pack("{s:s}", "phoneNumber", "+1 650 555 1234"), &st);
    EXPECT_OK(r, st);
    CHECKF(tu_str(r, "user.uid") && strcmp(tu_str(r, "user.uid"), uid) == 0, "%s", tu_dump(r));
    json_decref(r);
    r = call_uid("getUser", "no-such-uid", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_NOT_FOUND, "userNotFound");
    json_decref(r);
    r = tu_call(g_e, "getUserByPhoneNumber", "{\"phoneNumber\": \"+16505553434\"}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_NOT_FOUND, "userNotFound");
    json_decref(r);
    r = tu_call(g_e, "getUserByPhoneNumber", "{\"phoneNumber\": \"abc\"}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_PHONE_NUMBER, "invalidPhoneNumber");
    json_decref(r);

    /* updateUser: displayName, then back to null */
    r = tu_callj(g_e, "updateUser", json_pack("{s:s, s:s}", "uid", uid, "displayName", "Ada \xc3\xa9"), &st);
    EXPECT_OK(r, st);
    CHECKF(tu_str(r, "user.displayName") && strcmp(tu_str(r, "user.displayName"), "Ada \xc3\xa9") == 0,
           "%s", tu_dump(r));
    json_decref(r);
    r = tu_callj(g_e, "updateUser", json_pack("{s:s, s:n}", "uid", uid, "displayName"), &st);
    EXPECT_OK(r, st);
    CHECKF(json_is_null(tu_get(r, "user.displayName")), "%s", tu_dump(r));
    json_decref(r);
    r = tu_callj(g_e, "updateUser", json_pack("{s:s, s:b}", "uid", "no-such-uid", "disabled", 1), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_NOT_FOUND, "userNotFound");
    json_decref(r);

    /* revokeRefreshTokens: the session ends; older ID tokens fail checkRevoked only */
    tu_sleep_ms(1100); /* revocation is later than the token's auth_time, to the second */
    r = call_uid("revokeRefreshTokens", uid, &st);
    EXPECT_OK(r, st);
    json_decref(r);
    r = tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", rt), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_USER_TOKEN, "invalidUserToken");
    json_decref(r);
    r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s}", "idToken", idt), &st);
    EXPECT_OK(r, st);
    json_decref(r);
    r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s, s:b}", "idToken", idt, "checkRevoked", 1), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_ID_TOKEN_REVOKED, "idTokenRevoked");
    json_decref(r);

    /* a new sign-in after the revocation is fine */
    tu_sleep_ms(1100);
    r = sign_in(&st);
    EXPECT_OK(r, st);
    snprintf(rt, sizeof rt, "%s", tu_str(r, "refreshToken") ? tu_str(r, "refreshToken") : "");
    snprintf(idt, sizeof idt, "%s", tu_str(r, "idToken") ? tu_str(r, "idToken") : "");
    json_decref(r);
    r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s, s:b}", "idToken", idt, "checkRevoked", 1), &st);
    EXPECT_OK(r, st);
    json_decref(r);

    /* disabling ends the sessions and blocks sign-in */
    r = tu_callj(g_e, "updateUser", json_pack("{s:s, s:b}", "uid", uid, "disabled", 1), &st);
    EXPECT_OK(r, st);
    CHECKF(tu_bool(r, "user.disabled") == 1, "%s", tu_dump(r));
    json_decref(r);
    r = tu_callj(g_e, "refreshIdToken", json_pack("{s:s}", "refreshToken", rt), &st);
    CHECKF(st == PHONEAUTH_ERR_USER_DISABLED || st == PHONEAUTH_ERR_INVALID_USER_TOKEN,
           "refresh of a disabled user: %d %s", st, tu_dump(r));
    json_decref(r);
    r = tu_callj(g_e, "verifyIdToken", json_pack("{s:s, s:b}", "idToken", idt, "checkRevoked", 1), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_DISABLED, "userDisabled");
    json_decref(r);
    r = sign_in(&st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_DISABLED, "userDisabled");
    json_decref(r);
    r = tu_callj(g_e, "updateUser", json_pack("{s:s, s:b}", "uid", uid, "disabled", 0), &st);
    EXPECT_OK(r, st);
    json_decref(r);
    r = sign_in(&st);
    EXPECT_OK(r, st);
    CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 0, "%s", tu_dump(r));
    json_decref(r);

    /* deleteUser: gone, and the next sign-in makes a new user */
    r = call_uid("deleteUser", uid, &st);
    EXPECT_OK(r, st);
    CHECKF(json_object_size(r) == 0, "deleteUser returns {}: %s", tu_dump(r));
    json_decref(r);
    r = call_uid("getUser", uid, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_NOT_FOUND, "userNotFound");
    json_decref(r);
    r = call_uid("deleteUser", uid, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_NOT_FOUND, "userNotFound");
    json_decref(r);
    r = sign_in(&st);
    EXPECT_OK(r, st);
    CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 1, "%s", tu_dump(r));
    CHECKF(tu_str(r, "user.uid") && strcmp(tu_str(r, "user.uid"), uid) != 0, "%s", tu_dump(r));
    char phone_id_token[4096];
    snprintf(phone_id_token, sizeof phone_id_token, "%s", tu_str(r, "idToken") ? tu_str(r, "idToken") : "");
    json_decref(r);

    /* createCustomToken / signInWithCustomToken: a host's own uid, claims in the ID token */
    r = tu_callj(g_e, "createCustomToken", json_pack("{s:s, s:{s:s}}", "uid", "host-user-1", "claims", "role", "admin"), &st);
    EXPECT_OK(r, st);
    char custom[4096];
    snprintf(custom, sizeof custom, "%s", tu_str(r, "customToken") ? tu_str(r, "customToken") : "");
    json_decref(r);
    r = tu_callj(g_e, "signInWithCustomToken", json_pack("{s:s}", "customToken", custom), &st);
    EXPECT_OK(r, st);
    CHECKF(tu_str(r, "user.uid") && strcmp(tu_str(r, "user.uid"), "host-user-1") == 0, "%s", tu_dump(r));
    CHECKF(tu_str(r, "additionalUserInfo.providerId") && strcmp(tu_str(r, "additionalUserInfo.providerId"), "custom") == 0,
           "%s", tu_dump(r));
    json_t *v = tu_callj(g_e, "verifyIdToken", json_pack("{s:s?}", "idToken", tu_str(r, "idToken")), &st);
    EXPECT_OK(v, st);
    CHECKF(tu_str(v, "claims.role") && strcmp(tu_str(v, "claims.role"), "admin") == 0, "%s", tu_dump(v));
    json_decref(v);
    json_decref(r);
    r = tu_callj(g_e, "signInWithCustomToken", json_pack("{s:s}", "customToken", phone_id_token), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_CUSTOM_TOKEN_MISMATCH, "customTokenMismatch");
    json_decref(r);
    r = tu_callj(g_e, "signInWithCustomToken", json_pack("{s:s}", "customToken", "a.b.c"), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_CUSTOM_TOKEN, "invalidCustomToken");
    json_decref(r);
    r = tu_callj(g_e, "createCustomToken", json_pack("{s:s, s:{s:s}}", "uid", "u", "claims", "iss", "x"), &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    json_decref(r);

done:
    phoneauth_close(g_e);
    tu_rmtree(dir);
    free(dir);
    return tu_finish();
}
