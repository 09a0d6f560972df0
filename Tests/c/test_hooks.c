/* test_hooks.c: a blocking hook from C (phoneauth_set_hook). A beforeSendSms hook that lets only
 * an allow list of numbers get codes: the others get PHONEAUTH_ERR_BLOCKING_FUNCTION_ERROR with
 * the hook's message and no SMS; a BLOCK sends nothing; a hook that fails (non-zero, or an answer
 * that is not JSON) refuses unless hooks.beforeSendSms.onError is "allow"; bad arguments.
 * beforeCreate and beforeSignIn: an allow list of who may sign up (a refusal creates no user); a
 * beforeSignIn's session claims go into the ID token only, its custom claims onto the user; an
 * answer that is not JSON refuses (hookFailed) unless onError is "allow". */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALLOWED "+16505553434"
#define OTHER "+16505553435"

static char *g_dir;

typedef struct {
    int calls;
    int mode; /* 0: the allow list; 1: BLOCK; 2: return non-zero; 3: write what is not JSON */
    char last_type[64];
} allow_list;

static int hook(void *ctx, const char *event_json, char *response, size_t size) {
    allow_list *a = ctx;
    a->calls++;
    json_t *event = json_loads(event_json, 0, NULL);
    const char *phone = json_string_value(json_object_get(event, "phone_number"));
    const char *type = json_string_value(json_object_get(event, "sms_type"));
    snprintf(a->last_type, sizeof a->last_type, "%s", type ? type : "");
    const char *answer = "{}";
    if (a->mode == 1) answer = "{\"recaptchaActionOverride\": \"BLOCK\"}";
    if (a->mode == 3) answer = "not json";
    if (a->mode == 0 && !(phone && strcmp(phone, ALLOWED) == 0))
        answer = "{\"error\": {\"status\": \"PERMISSION_DENIED\", \"message\": \"This number is not invited.\"}}";
    json_decref(event);
    if (a->mode == 2) return 1;
    snprintf(response, size, "%s", answer);
    return 0;
}

static json_t *send_code(phoneauth_engine *e, const char *phone, int *st) {
    char params[128];
    snprintf(params, sizeof params, "{\"phoneNumber\": \"%s\"}", phone);
    return tu_call(e, "verifyPhoneNumber", params, st);
}

static void test_allow_list_and_block(void) {
    tu_sms sms;
    tu_sms_init(&sms, NULL);
    allow_list a = {0};
    phoneauth_engine *e = tu_open(g_dir, "allow", NULL);
    if (!e) return;
    phoneauth_set_sms_sender(e, tu_sms_sender, &sms);
    CHECK(phoneauth_set_hook(e, "beforeSendSms", hook, &a) == PHONEAUTH_OK);

    int st;
    json_t *r = send_code(e, OTHER, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_BLOCKING_FUNCTION_ERROR, "blockingFunctionError");
    CHECKF(strcmp(tu_errmsg(r), "This number is not invited.") == 0, "%s", tu_dump(r));
    CHECK(strcmp(tu_str(r, "error.details.reason"), "refused") == 0);
    CHECK(strcmp(tu_str(r, "error.details.status"), "PERMISSION_DENIED") == 0);
    json_decref(r);

    r = send_code(e, ALLOWED, &st);
    if (EXPECT_OK(r, st)) {
        json_t *m = tu_sms_wait(&sms, tu_str(r, "verificationId"), tu_timeout_ms(10000));
        CHECK(m != NULL);
        json_decref(m);
    }
    json_decref(r);
    CHECK(a.calls == 2 && strcmp(a.last_type, "SIGN_IN_OR_SIGN_UP") == 0);

    a.mode = 1;
    r = send_code(e, ALLOWED, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_BLOCKING_FUNCTION_ERROR, "blockingFunctionError");
    CHECK(strcmp(tu_str(r, "error.details.reason"), "smsBlocked") == 0);
    json_decref(r);

    CHECK(phoneauth_set_hook(e, "beforeSendSms", NULL, NULL) == PHONEAUTH_OK);
    r = send_code(e, OTHER, &st);
    if (EXPECT_OK(r, st)) {
        json_t *m = tu_sms_wait(&sms, tu_str(r, "verificationId"), tu_timeout_ms(10000));
        CHECK(m != NULL);
        json_decref(m);
    }
    json_decref(r);
    /* Delivery goes in order: a refused or blocked code's SMS would have come before this one. */
    CHECK(tu_sms_calls(&sms) == 2);
    phoneauth_close(e);
    tu_sms_destroy(&sms);
}

static void test_failures_follow_on_error(void) {
    for (int mode = 2; mode <= 3; mode++) {
        for (int allow = 0; allow <= 1; allow++) {
            tu_sms sms;
            tu_sms_init(&sms, NULL);
            allow_list a = {.mode = mode};
            char name[32];
            snprintf(name, sizeof name, "fail%d%d", mode, allow);
            phoneauth_engine *e =
                tu_open(g_dir, name, allow ? "{\"hooks\": {\"beforeSendSms\": {\"onError\": \"allow\"}}}" : NULL);
            if (!e) continue;
            phoneauth_set_sms_sender(e, tu_sms_sender, &sms);
            phoneauth_set_hook(e, "beforeSendSms", hook, &a);
            int st;
            json_t *r = send_code(e, ALLOWED, &st);
            if (allow) {
                EXPECT_OK(r, st);
            } else {
                EXPECT_ERR(r, st, PHONEAUTH_ERR_BLOCKING_FUNCTION_ERROR, "blockingFunctionError");
                CHECK(strcmp(tu_str(r, "error.details.reason"), "hookFailed") == 0);
            }
            json_decref(r);
            CHECK(a.calls == 1);
            phoneauth_close(e);
            tu_sms_destroy(&sms);
        }
    }
}

/* ---- beforeCreate / beforeSignIn ------------------------------------------------------------ */

#define INVITED "+16505551230"
#define STRANGER "+16505551231"
#define FIXED "{\"testPhoneNumbers\": {\"" INVITED "\": \"123456\", \"" STRANGER "\": \"123456\"}"

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

typedef struct {
    int calls;
    const char *answer; /* the response; NULL: {} for INVITED, a refusal for anyone else */
    char last_type[64];
    char last_sub[160];
} judge;

static int judge_hook(void *ctx, const char *event_json, char *response, size_t size) {
    judge *j = ctx;
    j->calls++;
    json_t *event = json_loads(event_json, 0, NULL);
    const char *type = tu_str(event, "event_type"), *sub = tu_str(event, "sub");
    snprintf(j->last_type, sizeof j->last_type, "%s", type ? type : "");
    snprintf(j->last_sub, sizeof j->last_sub, "%s", sub ? sub : "");
    const char *answer = j->answer;
    if (!answer)
        answer = same(tu_str(event, "user_record.phone_number"), INVITED)
                     ? "{}"
                     : "{\"error\": {\"status\": \"PERMISSION_DENIED\", \"message\": \"Sign-up is by invitation.\"}}";
    json_decref(event);
    snprintf(response, size, "%s", answer);
    return 0;
}

/* verifyPhoneNumber + credential + signInWithCredential for one of the test numbers. */
static json_t *sign_in_fixed(phoneauth_engine *e, const char *phone, int *st) {
    json_t *v = send_code(e, phone, st);
    if (!EXPECT_OK(v, *st)) return v;
    json_t *c = tu_callj(e, "credential",
                         json_pack("{s:s?, s:s}", "verificationId", tu_str(v, "verificationId"),
                                   "verificationCode", "123456"), st);
    json_decref(v);
    if (!EXPECT_OK(c, *st)) return c;
    json_t *r = tu_callj(e, "signInWithCredential", json_pack("{s:O?}", "credential", tu_get(c, "credential")), st);
    json_decref(c);
    return r;
}

static json_t *user_by_phone(phoneauth_engine *e, const char *phone, int *st) {
    return tu_callj(e, "getUserByPhoneNumber", json_pack("{s:s}", "phoneNumber", phone), st);
}

static void test_before_create_allow_list(void) {
    judge j = {0};
    phoneauth_engine *e = tu_open(g_dir, "create", FIXED "}");
    if (!e) return;
    CHECK(phoneauth_set_hook(e, "beforeCreate", judge_hook, &j) == PHONEAUTH_OK);

    int st;
    json_t *r = sign_in_fixed(e, STRANGER, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_BLOCKING_FUNCTION_ERROR, "blockingFunctionError");
    CHECKF(same(tu_errmsg(r), "Sign-up is by invitation."), "%s", tu_dump(r));
    CHECKF(same(tu_str(r, "error.details.hook"), "beforeCreate"), "%s", tu_dump(r));
    CHECKF(same(tu_str(r, "error.details.reason"), "refused"), "%s", tu_dump(r));
    json_decref(r);
    CHECK(j.calls == 1 && same(j.last_type, "beforeCreate"));
    r = user_by_phone(e, STRANGER, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_NOT_FOUND, "userNotFound"); /* refused: no user written */
    json_decref(r);

    r = sign_in_fixed(e, INVITED, &st);
    if (EXPECT_OK(r, st)) {
        CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 1, "%s", tu_dump(r));
        CHECKF(same(tu_str(r, "user.uid"), j.last_sub), "the hook saw the uid %s: %s", j.last_sub, tu_dump(r));
    }
    json_decref(r);
    CHECK(j.calls == 2);
    r = user_by_phone(e, INVITED, &st);
    EXPECT_OK(r, st);
    json_decref(r);
    phoneauth_close(e);
}

static void test_before_sign_in_claims(void) {
    judge j = {.answer = "{\"userRecord\": {\"updateMask\": \"customClaims,sessionClaims\","
                         " \"customClaims\": {\"role\": \"admin\"}, \"sessionClaims\": {\"device\": \"kiosk\"}}}"};
    phoneauth_engine *e = tu_open(g_dir, "claims", FIXED "}");
    if (!e) return;
    CHECK(phoneauth_set_hook(e, "beforeSignIn", judge_hook, &j) == PHONEAUTH_OK);
    int st;
    json_t *r = sign_in_fixed(e, INVITED, &st);
    if (EXPECT_OK(r, st)) {
        CHECK(j.calls == 1 && same(j.last_type, "beforeSignIn") && same(j.last_sub, tu_str(r, "user.uid")));
        json_t *v = tu_callj(e, "verifyIdToken", json_pack("{s:s?}", "idToken", tu_str(r, "idToken")), &st);
        if (EXPECT_OK(v, st)) {
            CHECKF(same(tu_str(v, "claims.device"), "kiosk"), "%s", tu_dump(v));
            CHECKF(same(tu_str(v, "claims.role"), "admin"), "%s", tu_dump(v));
        }
        json_decref(v);
        json_t *u = tu_callj(e, "getUser", json_pack("{s:s?}", "uid", tu_str(r, "user.uid")), &st);
        if (EXPECT_OK(u, st)) {
            /* customClaims are stored; session claims are not */
            json_t *want = json_pack("{s:s}", "role", "admin");
            CHECKF(json_equal(tu_get(u, "user.customClaims"), want), "%s", tu_dump(u));
            json_decref(want);
        }
        json_decref(u);
    }
    json_decref(r);
    phoneauth_close(e);
}

static void test_malformed_answer_follows_on_error(void) {
    const char *names[] = {"beforeCreate", "beforeSignIn"};
    for (int n = 0; n < 2; n++) {
        for (int allow = 0; allow <= 1; allow++) {
            judge j = {.answer = "{\"userRecord\": {\"updateMask\": "};
            char name[32], config[256];
            snprintf(name, sizeof name, "malformed%d%d", n, allow);
            snprintf(config, sizeof config, FIXED ", \"hooks\": {\"%s\": {\"onError\": \"%s\"}}}", names[n],
                     allow ? "allow" : "deny");
            phoneauth_engine *e = tu_open(g_dir, name, config);
            if (!e) continue;
            CHECK(phoneauth_set_hook(e, names[n], judge_hook, &j) == PHONEAUTH_OK);
            int st;
            json_t *r = sign_in_fixed(e, INVITED, &st);
            if (allow) {
                if (EXPECT_OK(r, st)) CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 1, "%s", tu_dump(r));
            } else {
                EXPECT_ERR(r, st, PHONEAUTH_ERR_BLOCKING_FUNCTION_ERROR, "blockingFunctionError");
                CHECKF(same(tu_str(r, "error.details.reason"), "hookFailed"), "%s", tu_dump(r));
                CHECKF(same(tu_str(r, "error.details.hook"), names[n]), "%s", tu_dump(r));
            }
            json_decref(r);
            CHECKF(j.calls == 1 && same(j.last_type, names[n]), "%s: %d calls", names[n], j.calls);
            r = user_by_phone(e, INVITED, &st);
            if (allow)
                EXPECT_OK(r, st);
            else if (n == 0) /* a refused beforeCreate leaves no user */
                EXPECT_ERR(r, st, PHONEAUTH_ERR_USER_NOT_FOUND, "userNotFound");
            json_decref(r);
            phoneauth_close(e);
        }
    }
}

static void test_bad_arguments(void) {
    allow_list a = {0};
    CHECK(phoneauth_set_hook(NULL, "beforeSendSms", hook, &a) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    phoneauth_engine *e = tu_open(g_dir, "bad", NULL);
    if (!e) return;
    CHECK(phoneauth_set_hook(e, NULL, hook, &a) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_set_hook(e, "beforeSmsSent", hook, &a) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_set_hook(e, "", NULL, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    phoneauth_close(e);
    CHECK(a.calls == 0);
}

int main(void) {
    g_dir = tu_tmpdir();
    test_allow_list_and_block();
    test_failures_follow_on_error();
    test_before_create_allow_list();
    test_before_sign_in_claims();
    test_malformed_answer_follows_on_error();
    test_bad_arguments();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
