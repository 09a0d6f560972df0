/* test_sms.c: the SMS sender callback: retries, giving up, removing and replacing the sender,
 * the outbox surviving an engine restart, the resend window, languages, no message body left in
 * clear in the database after delivery, phoneauth_close waiting for a running callback (and not
 * for a far retry), and the console provider ignoring the callback. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *g_dir;

static json_t *verify(phoneauth_engine *e, const char *phone, const char *lang) {
    int st;
    json_t *p = lang ? json_pack("{s:s, s:s}", "phoneNumber", phone, "languageCode", lang)
                     : json_pack("{s:s}", "phoneNumber", phone);
    json_t *v = tu_callj(e, "verifyPhoneNumber", p, &st);
    EXPECT_OK(v, st);
    return v;
}

static const char *delivery_of(phoneauth_engine *e, const char *vid, json_t **keep) {
    int st;
    *keep = tu_callj(e, "getVerificationStatus", json_pack("{s:s}", "verificationId", vid), &st);
    if (st != PHONEAUTH_OK) EXPECT_OK(*keep, st); /* counted only when it fails: this is polled */
    return tu_str(*keep, "delivery");
}

/* Polls getVerificationStatus until delivery == want (or timeout); returns 1 when reached. */
static int wait_delivery(phoneauth_engine *e, const char *vid, const char *want, int timeout_ms) {
    int waited = 0;
    for (;;) {
        json_t *s;
        const char *d = delivery_of(e, vid, &s);
        int ok = d && strcmp(d, want) == 0;
        if (ok || waited >= timeout_ms) {
            CHECKF(ok, "delivery should become %s: %s", want, tu_dump(s));
            json_decref(s);
            return ok;
        }
        json_decref(s);
        tu_sleep_ms(20);
        waited += 20;
    }
}

/* Signs in with the code from message m for verification vid. */
static void sign_in_with_message(phoneauth_engine *e, const char *vid, json_t *m) {
    char code[16];
    if (!CHECKF(tu_extract_code(tu_str(m, "body"), 6, code), "%s", tu_dump(m))) return;
    int st;
    json_t *r = tu_callj(e, "signInWithCredential",
                         json_pack("{s:{s:s, s:s, s:s}}", "credential", "providerId", "phone",
                                   "verificationId", vid, "verificationCode", code),
                         &st);
    EXPECT_OK(r, st);
    json_decref(r);
}

/* A callback returning non-zero is retried (sms.retryBackoffMs 50) until it returns 0. */
static void test_retry(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "retry", "{\"sms\": {\"retryBackoffMs\": 50, \"maxAttempts\": 5}}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        tu_sms_fail_next(&s, 2);
        json_t *v = verify(e, "+16505553434", NULL);
        const char *vid = tu_str(v, "verificationId");
        int calls = tu_sms_wait_calls(&s, 3, tu_timeout_ms(10000));
        CHECKF(calls == 3, "2 failures then success: %d invocations", calls);
        if (vid) {
            wait_delivery(e, vid, "sent", tu_timeout_ms(5000));
            json_t *stt;
            delivery_of(e, vid, &stt);
            CHECKF(tu_int(stt, "attempts", -1) == 3, "3 delivery attempts: %s", tu_dump(stt));
            json_decref(stt);
            tu_sleep_ms(300); /* 6 backoffs' worth: no invocation after the success */
            CHECKF(tu_sms_calls(&s) == 3, "invoked again after success: %d", tu_sms_calls(&s));
            /* every attempt carried the same message */
            pthread_mutex_lock(&s.mu);
            json_t *m0 = json_array_get(s.messages, 0), *m2 = json_array_get(s.messages, 2);
            CHECKF(m0 && m2 && json_equal(m0, m2), "retries differ: %s", tu_dump(s.messages));
            json_t *m = json_incref(m2);
            pthread_mutex_unlock(&s.mu);
            sign_in_with_message(e, vid, m);
            json_decref(m);
        }
        json_decref(v);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);
}

/* After sms.maxAttempts failures the engine gives up: delivery "failed", no more invocations. */
static void test_give_up(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "giveup", "{\"sms\": {\"retryBackoffMs\": 20, \"maxAttempts\": 3}}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        tu_sms_fail_next(&s, 1000);
        json_t *v = verify(e, "+16505553434", NULL);
        const char *vid = tu_str(v, "verificationId");
        int calls = tu_sms_wait_calls(&s, 3, tu_timeout_ms(10000));
        CHECKF(calls == 3, "3 attempts expected, got %d", calls);
        if (vid) wait_delivery(e, vid, "failed", tu_timeout_ms(5000));
        tu_sleep_ms(500);
        CHECKF(tu_sms_calls(&s) == 3, "retried beyond maxAttempts: %d", tu_sms_calls(&s));
        json_decref(v);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);
}

/* set_sms_sender(NULL) removes the sender; queued messages wait, and go once one is installed.
 * Replacing a sender means the old one is never called again. */
static void test_remove_and_replace(void) {
    tu_sms a, b;
    tu_sms_init(&a, "a");
    tu_sms_init(&b, "b");
    phoneauth_engine *e = tu_open(g_dir, "remove", NULL);
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &a) == PHONEAUTH_OK);
        CHECK(phoneauth_set_sms_sender(e, NULL, NULL) == PHONEAUTH_OK);
        CHECK(phoneauth_set_sms_sender(e, NULL, NULL) == PHONEAUTH_OK); /* twice is fine */
        json_t *v = verify(e, "+16505553434", NULL);
        const char *vid = tu_str(v, "verificationId");
        tu_sleep_ms(tu_timeout_ms(1000));
        CHECKF(tu_sms_calls(&a) == 0, "removed sender was called %d times", tu_sms_calls(&a));
        if (vid) {
            json_t *st;
            const char *d = delivery_of(e, vid, &st);
            CHECKF(d && strcmp(d, "pending") == 0, "no sender: delivery pending: %s", tu_dump(st));
            json_decref(st);
        }
        /* install b: the queued message reaches b, not a */
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &b) == PHONEAUTH_OK);
        json_t *m = vid ? tu_sms_wait(&b, vid, tu_timeout_ms(10000)) : NULL;
        CHECKF(m != NULL, "queued message not delivered after installing a sender");
        if (m) sign_in_with_message(e, vid, m);
        json_decref(m);
        CHECK(tu_sms_calls(&a) == 0);

        /* replace b by a: new messages reach a only */
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &a) == PHONEAUTH_OK);
        int b_before = tu_sms_calls(&b);
        json_t *v2 = verify(e, "+447400123456", NULL);
        const char *vid2 = tu_str(v2, "verificationId");
        m = vid2 ? tu_sms_wait(&a, vid2, tu_timeout_ms(10000)) : NULL;
        CHECKF(m != NULL, "message not delivered to the new sender");
        CHECKF(tu_str(m, "to") && strcmp(tu_str(m, "to"), "+447400123456") == 0, "%s", tu_dump(m));
        json_decref(m);
        CHECKF(tu_sms_calls(&b) == b_before, "replaced sender called again");
        json_decref(v2);
        json_decref(v);
    }
    phoneauth_close(e);
    tu_sms_destroy(&a);
    tu_sms_destroy(&b);
}

/* A verification and its undelivered SMS survive closing the engine. */
static void test_outbox_survives_restart(void) {
    char vid[512] = "";
    phoneauth_engine *e = tu_open(g_dir, "restart", NULL);
    if (e) {
        json_t *v = verify(e, "+16505553434", NULL);
        if (tu_str(v, "verificationId")) snprintf(vid, sizeof vid, "%s", tu_str(v, "verificationId"));
        json_decref(v);
    }
    phoneauth_close(e); /* no sender was ever installed */
    if (!vid[0]) return;
    tu_sms s;
    tu_sms_init(&s, NULL);
    e = tu_open(g_dir, "restart", NULL);
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        json_t *m = tu_sms_wait(&s, vid, tu_timeout_ms(10000));
        CHECKF(m != NULL, "the queued SMS was not delivered by the next engine");
        if (m) sign_in_with_message(e, vid, m);
        json_decref(m);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);
}

/* Within resendAfterSeconds the same verification comes back and no second SMS is sent. */
static void test_resend_window(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "resend", "{\"resendAfterSeconds\": 60}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        json_t *v1 = verify(e, "+16505553434", NULL);
        json_t *v2 = verify(e, "+16505553434", NULL);
        const char *a = tu_str(v1, "verificationId"), *b = tu_str(v2, "verificationId");
        CHECKF(a && b && strcmp(a, b) == 0, "%s vs %s", tu_dump(v1), a ? a : "NULL");
        /* SMS go out in the order they were queued: a second one for the number would come
         * before that of another number, started now */
        json_t *other = verify(e, "+447400123456", NULL);
        const char *other_vid = tu_str(other, "verificationId");
        json_t *m = other_vid ? tu_sms_wait(&s, other_vid, tu_timeout_ms(10000)) : NULL;
        CHECKF(m != NULL && tu_sms_calls(&s) == 2, "one SMS expected for the number, got %d", tu_sms_calls(&s) - 1);
        json_decref(m);
        json_decref(other);
        json_decref(v1);
        json_decref(v2);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);
}

/* The message's languageCode: requested, falling back to the default for unknown ones. */
static void test_language(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "lang", NULL);
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        json_t *v = verify(e, "+16505553434", "xx-YY");
        const char *vid = tu_str(v, "verificationId");
        json_t *m = vid ? tu_sms_wait(&s, vid, tu_timeout_ms(10000)) : NULL;
        CHECKF(tu_str(m, "languageCode") && strcmp(tu_str(m, "languageCode"), "en") == 0,
               "unknown language falls back to en: %s", tu_dump(m));
        json_decref(m);
        json_decref(v);
        v = verify(e, "+447400123456", "fr-CA");
        vid = tu_str(v, "verificationId");
        m = vid ? tu_sms_wait(&s, vid, tu_timeout_ms(10000)) : NULL;
        const char *lang = tu_str(m, "languageCode");
        CHECKF(lang && (strcmp(lang, "fr-CA") == 0 || strcmp(lang, "fr") == 0 || strcmp(lang, "en") == 0),
               "%s", tu_dump(m));
        char code[16];
        CHECKF(tu_extract_code(tu_str(m, "body"), 6, code), "%s", tu_dump(m));
        json_decref(m);
        json_decref(v);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);
}

/* "The message body is not kept in clear once it has been delivered." */
static void test_body_not_kept(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "clear", NULL);
    char body[1024] = "";
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        json_t *v = verify(e, "+16505553434", NULL);
        const char *vid = tu_str(v, "verificationId");
        json_t *m = vid ? tu_sms_wait(&s, vid, tu_timeout_ms(10000)) : NULL;
        if (CHECK(m != NULL) && tu_str(m, "body")) snprintf(body, sizeof body, "%s", tu_str(m, "body"));
        if (vid) wait_delivery(e, vid, "sent", tu_timeout_ms(5000));
        json_decref(m);
        json_decref(v);
    }
    phoneauth_close(e);
    if (body[0]) {
        char db[4096];
        snprintf(db, sizeof db, "%s/clear.db", g_dir);
        CHECKF(!tu_db_contains(db, body), "the delivered SMS body \"%s\" is still in %s", body, db);
    }
    tu_sms_destroy(&s);
}

/* With sms.provider "console" the message goes to stderr and the callback is ignored. */
static void test_console_provider(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "console", "{\"sms\": {\"provider\": \"console\"}}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        json_t *v = verify(e, "+16505553434", NULL);
        const char *vid = tu_str(v, "verificationId");
        /* sent: the attempt is over, the callback would have been called within it */
        if (vid) wait_delivery(e, vid, "sent", tu_timeout_ms(5000));
        CHECKF(tu_sms_calls(&s) == 0, "console provider called the callback %d times", tu_sms_calls(&s));
        json_decref(v);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);
}

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* phoneauth_close waits for a running callback to return; none runs after close returns. The
 * callback returns only once the close has begun, so it certainly runs when the close comes. */
static void test_close_waits_for_callback(void) {
    tu_sms s;
    tu_sent sent;
    tu_sms_init(&s, NULL);
    tu_sent_init(&sent);
    phoneauth_engine *e = tu_open(g_dir, "closewait", NULL);
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        CHECK(phoneauth_set_log_sink(e, tu_sent_sink, &sent) == PHONEAUTH_OK);
        /* a first message: its codeSent marks the bookkeeping thread */
        json_decref(verify(e, "+447400123456", NULL));
        CHECKF(tu_sent_wait(&sent, 1, tu_timeout_ms(10000)) == 1, "no codeSent for the first message");
        tu_sms_hold_until_close(&s);
        json_decref(verify(e, "+16505553434", NULL));
        int started = tu_sms_wait_calls(&s, 2, tu_timeout_ms(10000));
        CHECKF(started == 2, "the callback did not start");
        phoneauth_close(e);
        CHECKF(tu_sms_returned(&s) == tu_sms_calls(&s),
               "phoneauth_close returned while the callback was still running");
        int calls = tu_sms_calls(&s);
        tu_sleep_ms(200);
        CHECKF(tu_sms_calls(&s) == calls, "callback invoked after phoneauth_close");
    }
    tu_sms_destroy(&s);
    tu_sent_destroy(&sent);
}

/* phoneauth_close does not wait for a retry that is due far in the future. */
static void test_close_with_pending_retry(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "closeretry", "{\"sms\": {\"retryBackoffMs\": 600000}}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        tu_sms_fail_next(&s, 1);
        json_t *v = verify(e, "+16505553434", NULL);
        json_decref(v);
        CHECKF(tu_sms_wait_calls(&s, 1, tu_timeout_ms(10000)) == 1, "the callback did not run");
        tu_sleep_ms(50);
        long long t0 = now_ms();
        phoneauth_close(e);
        long long took = now_ms() - t0;
        CHECKF(took < tu_timeout_ms(3000), "phoneauth_close took %lld ms with a retry pending", took);
        CHECK(tu_sms_calls(&s) == 1);
    }
    tu_sms_destroy(&s);
}

int main(void) {
    g_dir = tu_tmpdir();
    test_retry();
    test_give_up();
    test_remove_and_replace();
    test_outbox_survives_restart();
    test_resend_window();
    test_language();
    test_body_not_kept();
    test_close_waits_for_callback();
    test_close_with_pending_retry();
    test_console_provider();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
