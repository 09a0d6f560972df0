/* test_test_numbers.c: fictional test numbers (no SMS) and appVerification.disabledForTesting. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEST_NUMBERS "{\"+16505551234\": \"123456\", \"+447400123456\": \"654321\"}"

static char *g_dir;

/* verifyPhoneNumber + credential + signInWithCredential with a given code. */
static json_t *sign_in_code(phoneauth_engine *e, const char *phone, const char *code, int *st,
                            char *vid_out) {
    json_t *v = tu_callj(e, "verifyPhoneNumber", json_pack("{s:s}", "phoneNumber", phone), st);
    if (!EXPECT_OK(v, *st)) return v;
    const char *vid = tu_str(v, "verificationId");
    if (vid_out && vid) snprintf(vid_out, 512, "%s", vid);
    json_t *c = tu_callj(e, "credential",
                         json_pack("{s:s?, s:s}", "verificationId", vid, "verificationCode", code), st);
    json_decref(v);
    if (!EXPECT_OK(c, *st)) return c;
    json_t *r = tu_callj(e, "signInWithCredential",
                         json_pack("{s:O?}", "credential", tu_get(c, "credential")), st);
    json_decref(c);
    return r;
}

static void test_flow(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "testnum", "{\"testPhoneNumbers\": " TEST_NUMBERS "}");
    if (!e) {
        tu_sms_destroy(&s);
        return;
    }
    CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);

    /* wrong code */
    int st;
    char vid[512] = "";
    json_t *r = sign_in_code(e, "+16505551234", "000000", &st, vid);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
    json_decref(r);

    /* the configured code; a new user */
    r = sign_in_code(e, "+16505551234", "123456", &st, vid);
    char uid[256] = "";
    if (EXPECT_OK(r, st)) {
        CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 1, "%s", tu_dump(r));
        CHECKF(tu_str(r, "user.phoneNumber") && strcmp(tu_str(r, "user.phoneNumber"), "+16505551234") == 0,
               "%s", tu_dump(r));
        if (tu_str(r, "user.uid")) snprintf(uid, sizeof uid, "%s", tu_str(r, "user.uid"));
        /* the tokens are real */
        json_t *x = tu_callj(e, "verifyIdToken", json_pack("{s:s?}", "idToken", tu_str(r, "idToken")), &st);
        EXPECT_OK(x, st);
        json_decref(x);
    }
    json_decref(r);
    if (vid[0]) {
        json_t *stt = tu_callj(e, "getVerificationStatus", json_pack("{s:s}", "verificationId", vid), &st);
        EXPECT_OK(stt, st);
        CHECKF(tu_str(stt, "delivery") && strcmp(tu_str(stt, "delivery"), "none") == 0,
               "test numbers: delivery none: %s", tu_dump(stt));
        json_decref(stt);
    }

    /* again: the same user, not new; a formatted number matches the test number too */
    r = sign_in_code(e, "+1 (650) 555-1234", "123456", &st, NULL);
    if (EXPECT_OK(r, st)) {
        CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 0, "%s", tu_dump(r));
        CHECKF(tu_str(r, "user.uid") && strcmp(tu_str(r, "user.uid"), uid) == 0, "%s", tu_dump(r));
    }
    json_decref(r);

    /* the other test number has its own code */
    r = sign_in_code(e, "+447400123456", "123456", &st, NULL);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
    json_decref(r);
    r = sign_in_code(e, "+447400123456", "654321", &st, NULL);
    EXPECT_OK(r, st);
    json_decref(r);

    /* a real number still sends one; and as SMS go out in the order they were queued, one for a
     * test number would have come before it: none did */
    json_t *v = tu_call(e, "verifyPhoneNumber", "{\"phoneNumber\": \"+16505553434\"}", &st);
    EXPECT_OK(v, st);
    const char *real_vid = tu_str(v, "verificationId");
    json_t *m = real_vid ? tu_sms_wait(&s, real_vid, tu_timeout_ms(10000)) : NULL;
    CHECKF(m != NULL, "real number: no SMS");
    CHECKF(tu_sms_calls(&s) == 1, "test numbers sent %d SMS", tu_sms_calls(&s) - 1);
    json_decref(m);
    json_decref(v);

    phoneauth_close(e);
    tu_sms_destroy(&s);
}

static void test_app_verification_disabled(void) {
    phoneauth_engine *e = tu_open(
        g_dir, "appver",
        "{\"testPhoneNumbers\": " TEST_NUMBERS ", \"appVerification\": {\"disabledForTesting\": true}}");
    if (!e) return;
    int st;
    json_t *r = tu_call(e, "verifyPhoneNumber", "{\"phoneNumber\": \"+16505553434\"}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_APP_NOT_VERIFIED, "appNotVerified");
    CHECKF(tu_get(r, "error.details.setting") != NULL, "details.setting: %s", tu_dump(r));
    json_decref(r);
    r = sign_in_code(e, "+16505551234", "123456", &st, NULL);
    EXPECT_OK(r, st);
    json_decref(r);
    phoneauth_close(e);
}

static void test_bad_test_numbers(void) {
    const char *configs[] = {
        /* 11 numbers: at most 10 */
        "{\"testPhoneNumbers\": {\"+16505553401\": \"123456\", \"+16505553402\": \"123456\","
        " \"+16505553403\": \"123456\", \"+16505553404\": \"123456\", \"+16505553405\": \"123456\","
        " \"+16505553406\": \"123456\", \"+16505553407\": \"123456\", \"+16505553408\": \"123456\","
        " \"+16505553409\": \"123456\", \"+16505553410\": \"123456\", \"+16505553411\": \"123456\"}}",
        /* not a phone number */
        "{\"testPhoneNumbers\": {\"hello\": \"123456\"}}",
        /* code not digits */
        "{\"testPhoneNumbers\": {\"+16505551234\": \"abcdef\"}}",
        /* code not a string */
        "{\"testPhoneNumbers\": {\"+16505551234\": 123456}}",
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        char *dbcfg = NULL;
        char *err = NULL;
        json_t *cfg = json_loads(configs[i], 0, NULL);
        char db[4096];
        snprintf(db, sizeof db, "%s/badtn.db", g_dir);
        tu_set_database(cfg, db);
        dbcfg = json_dumps(cfg, JSON_COMPACT);
        json_decref(cfg);
        phoneauth_engine *e = phoneauth_open(dbcfg, &err);
        CHECKF(e == NULL, "accepted: %s", configs[i]);
        phoneauth_close(e);
        json_t *r = err ? json_loads(err, 0, NULL) : NULL;
        CHECKF(tu_int(r, "error.status", 0) == PHONEAUTH_ERR_INVALID_CONFIGURATION &&
                   tu_str(r, "error.details.key") &&
                   strcmp(tu_str(r, "error.details.key"), "testPhoneNumbers") == 0,
               "%s -> %s", configs[i], err ? err : "NULL");
        json_decref(r);
        phoneauth_free(err);
        free(dbcfg);
    }
}

int main(void) {
    g_dir = tu_tmpdir();
    test_flow();
    test_app_verification_disabled();
    test_bad_test_numbers();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
