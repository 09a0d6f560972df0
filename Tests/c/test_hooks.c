/* test_hooks.c: a blocking hook from C (phoneauth_set_hook). A beforeSendSms hook that lets only
 * an allow list of numbers get codes: the others get PHONEAUTH_ERR_BLOCKING_FUNCTION_ERROR with
 * the hook's message and no SMS; a BLOCK sends nothing; a hook that fails (non-zero, or an answer
 * that is not JSON) refuses unless hooks.beforeSendSms.onError is "allow"; bad arguments. */
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
    test_bad_arguments();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
