/* test_app_verification.c: app verification before an SMS is sent. The push path (verifyClient,
 * the push sender, canHandleNotification, a receipt + secret for verifyPhoneNumber, used once),
 * the captcha path (getCaptchaChallenge, the callback URL and canHandleURL, the captcha verifier),
 * when the proof is required (appVerification.enforce, disabledForTesting), malformed pushes and
 * URLs, and bad input to the new methods and setters. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL "+16505553434"
#define TEST_NUMBER "+16505551234"
#define TEST_CODE "123456"
#define SECOND_NUMBER "+16505555678" /* a test number used as a second factor */
#define SECOND_CODE "654321"
#define PAGE "https://auth.example.com/captcha"
#define SCHEME "com.example.app"
/* Test numbers, a captcha page, and no per-number SMS limit (many codes go to REAL). */
#define BASE_CONFIG                                                                             \
    "\"testPhoneNumbers\": {\"" TEST_NUMBER "\": \"" TEST_CODE "\", \"" SECOND_NUMBER          \
    "\": \"" SECOND_CODE "\"}, \"captcha\": {\"pageUrl\": \"" PAGE "\"},"                       \
    " \"quotas\": {\"smsPerNumberPerHour\": 0}"

static char *g_dir;

static int streq(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* ---- a push service and the device behind it ------------------------------------------------ */

/* Stands in for APNs/FCM and the app: each accepted push's payload lands in the inbox, as the
 * app's notification handler would get it. The engine calls it on the thread of verifyClient,
 * which here is always the main thread, so it needs no lock. */
typedef struct {
    json_t *messages; /* every message given to the push service, parsed */
    json_t *inbox;    /* payloads delivered to the device, oldest first */
    int fail;         /* refuse pushes (the push service is down) */
    int calls;
    int bad_messages; /* message NULL or not a JSON object */
    int off_thread;   /* called on another thread than the one that set the device up */
    pthread_t owner;
} device;

static void device_init(device *d) {
    memset(d, 0, sizeof *d);
    d->messages = json_array();
    d->inbox = json_array();
    d->owner = pthread_self();
}

static void device_destroy(device *d) {
    json_decref(d->messages);
    json_decref(d->inbox);
}

static int push_sender(void *ctx, const char *message_json) {
    device *d = ctx;
    d->calls++;
    if (!pthread_equal(pthread_self(), d->owner)) d->off_thread = 1;
    json_t *m = message_json ? json_loads(message_json, 0, NULL) : NULL;
    if (!json_is_object(m)) {
        d->bad_messages++;
        json_decref(m);
        return 1;
    }
    json_array_append(d->messages, m);
    if (!d->fail) json_array_append(d->inbox, json_object_get(m, "payload"));
    json_decref(m);
    return d->fail;
}

/* The newest payload on the device (borrowed), or NULL. */
static json_t *last_push(device *d) {
    size_t n = json_array_size(d->inbox);
    return n ? json_array_get(d->inbox, n - 1) : NULL;
}

/* verifyClient, then the receipt and secret of the push it sent: {"receipt", "secret"} as
 * appVerification wants it (new reference), or NULL after recording why. */
static json_t *push_proof(phoneauth_engine *e, device *d) {
    int st;
    size_t before = json_array_size(d->inbox);
    json_t *r = tu_call(e, "verifyClient", "{\"appToken\": \"device-token\"}", &st);
    json_t *proof = NULL;
    if (EXPECT_OK(r, st) &&
        CHECKF(json_array_size(d->inbox) == before + 1, "no push delivered: %s", tu_dump(r))) {
        json_t *pa = tu_get(last_push(d), "phoneauth");
        const char *receipt = tu_str(pa, "receipt"), *secret = tu_str(pa, "secret");
        if (CHECKF(streq(receipt, tu_str(r, "receipt")) && secret && *secret, "push %s, result %s",
                   tu_dump(pa), tu_str(r, "receipt")))
            proof = json_pack("{s:s, s:s}", "receipt", receipt, "secret", secret);
    }
    json_decref(r);
    return proof;
}

/* ---- a captcha verifier ---------------------------------------------------------------------- */

/* Stands in for the host's call to reCAPTCHA/hCaptcha: answers with a fixed text. Called on the
 * thread of verifyPhoneNumber, here the main thread. */
typedef struct {
    const char *answer; /* written into the response buffer; NULL writes nothing */
    int rc;             /* returned: non-zero = could not check */
    int calls;
    json_t *request;    /* the last request, parsed */
    size_t size;        /* the last response_size */
    int off_thread;
    pthread_t owner;
} verifier;

static void verifier_init(verifier *v, const char *answer) {
    memset(v, 0, sizeof *v);
    v->answer = answer;
    v->owner = pthread_self();
}

static int captcha_verifier(void *ctx, const char *request_json, char *response, size_t size) {
    verifier *v = ctx;
    v->calls++;
    if (!pthread_equal(pthread_self(), v->owner)) v->off_thread = 1;
    json_decref(v->request);
    v->request = request_json ? json_loads(request_json, 0, NULL) : NULL;
    v->size = size;
    if (v->answer && response && size > 0) snprintf(response, size, "%s", v->answer);
    return v->rc;
}

/* ---- calls ------------------------------------------------------------------------------------ */

/* verifyPhoneNumber for phone with an optional appVerification object (stolen) and clientIp. */
static json_t *verify(phoneauth_engine *e, const char *phone, json_t *proof, const char *ip, int *st) {
    json_t *p = json_pack("{s:s}", "phoneNumber", phone);
    if (proof) json_object_set_new(p, "appVerification", proof);
    if (ip) json_object_set_new(p, "clientIp", json_string(ip));
    return tu_callj(e, "verifyPhoneNumber", p, st);
}

/* Checks an error's details.reason. */
#define EXPECT_REASON(res, want) \
    CHECKF(streq(tu_str((res), "error.details.reason"), (want)), "want reason %s: %s", (want), tu_dump(res))

/* Appends s to out, percent-encoding all but RFC 3986's unreserved characters. */
static void pct_append(char *out, size_t size, const char *s) {
    size_t n = strlen(out);
    for (; *s && n + 4 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            strchr("-._~", c))
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, size - n, "%%%02X", c);
    }
    out[n] = 0;
}

/* The URL the captcha page sends the browser to: "<scheme>://phoneauth/link?deep_link_id=<inner>"
 * where inner is "https://auth.example.com/captcha/done?eventId=<id>&<key>=<value>", its values
 * and then the whole of it percent-encoded. key NULL leaves the second parameter out. */
static void callback_url(char *out, size_t size, const char *scheme, const char *event_id,
                         const char *key, const char *value) {
    char inner[2048] = PAGE "/done?eventId=";
    pct_append(inner, sizeof inner, event_id);
    if (key) {
        snprintf(inner + strlen(inner), sizeof inner - strlen(inner), "&%s=", key);
        pct_append(inner, sizeof inner, value);
    }
    snprintf(out, size, "%s://phoneauth/link?deep_link_id=", scheme);
    pct_append(out, size, inner);
}

/* getCaptchaChallenge for a scheme; copies the eventId into id (size 256). Returns 1 on success. */
static int challenge(phoneauth_engine *e, const char *scheme, char *id) {
    int st;
    json_t *r = tu_callj(e, "getCaptchaChallenge", json_pack("{s:s}", "callbackScheme", scheme), &st);
    int ok = EXPECT_OK(r, st) && CHECKF(tu_str(r, "eventId") && *tu_str(r, "eventId"), "%s", tu_dump(r));
    if (ok) snprintf(id, 256, "%s", tu_str(r, "eventId"));
    json_decref(r);
    return ok;
}

static json_t *handle_url(phoneauth_engine *e, const char *url, int *st) {
    return tu_callj(e, "canHandleURL", json_pack("{s:s}", "url", url), st);
}

/* canHandleURL(url) answers {"handled": false} with status OK. */
static void expect_not_handled(phoneauth_engine *e, const char *url, const char *why) {
    int st;
    json_t *r = handle_url(e, url, &st);
    CHECKF(st == PHONEAUTH_OK && tu_bool(r, "handled") == 0 && !tu_get(r, "captchaToken"),
           "%s: %s -> %d %s", why, url, st, tu_dump(r));
    json_decref(r);
}

/* Waits for the SMS of a verification; returns 1 when it came. */
static int sms_arrives(tu_sms *s, json_t *verification) {
    const char *vid = tu_str(verification, "verificationId");
    json_t *m = vid ? tu_sms_wait(s, vid, tu_timeout_ms(10000)) : NULL;
    int ok = CHECKF(m != NULL, "no SMS for %s", tu_dump(verification));
    json_decref(m);
    return ok;
}

/* Signs in with a verification and its code; returns the result (new reference) or NULL. */
static json_t *sign_in(phoneauth_engine *e, json_t *verification, const char *code) {
    int st;
    json_t *r = tu_callj(e, "signInWithCredential",
                         json_pack("{s:{s:s, s:s?, s:s}}", "credential", "providerId", "phone",
                                   "verificationId", tu_str(verification, "verificationId"),
                                   "verificationCode", code),
                         &st);
    if (EXPECT_OK(r, st)) return r;
    json_decref(r);
    return NULL;
}

/* ---- tests ------------------------------------------------------------------------------------ */

static void test_null_engine(void) {
    device d;
    verifier v;
    device_init(&d);
    verifier_init(&v, NULL);
    CHECK(phoneauth_set_push_sender(NULL, push_sender, &d) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_set_push_sender(NULL, NULL, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_set_captcha_verifier(NULL, captcha_verifier, &v) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_set_captcha_verifier(NULL, NULL, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    const char *methods[] = {"verifyClient", "canHandleNotification", "getCaptchaChallenge", "canHandleURL"};
    for (size_t i = 0; i < 4; i++) {
        char *out = NULL;
        int st = phoneauth_call(NULL, methods[i], "{}", &out);
        json_t *r = tu_parse_out(st, out);
        CHECKF(st == PHONEAUTH_ERR_INVALID_ARGUMENT, "%s with a NULL engine -> %d", methods[i], st);
        json_decref(r);
    }
    CHECK(d.calls == 0 && v.calls == 0);
    device_destroy(&d);
}

/* verifyClient -> push -> canHandleNotification -> verifyPhoneNumber -> SMS -> sign-in. */
static void test_push_flow(void) {
    tu_sms s;
    device d;
    tu_sms_init(&s, NULL);
    device_init(&d);
    phoneauth_engine *e = tu_open(g_dir, "push", "{" BASE_CONFIG ", \"appVerification\": {\"pushTimeoutSeconds\": 7}}");
    if (!e) goto out;
    CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
    int st;

    /* no push sender yet: verifyClient cannot work, and the proof is not required */
    json_t *r = tu_call(e, "verifyClient", "{\"appToken\": \"device-token\"}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_OPERATION_NOT_ALLOWED, "operationNotAllowed");
    EXPECT_REASON(r, "noPushSender");
    json_decref(r);
    r = verify(e, REAL, NULL, NULL, &st);
    EXPECT_OK(r, st);
    json_decref(r);

    /* installing a push sender turns the requirement on */
    CHECK(phoneauth_set_push_sender(e, push_sender, &d) == PHONEAUTH_OK);
    r = verify(e, REAL, NULL, NULL, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_APP_CREDENTIAL, "missingAppCredential");
    json_decref(r);

    /* the push: to the app token, with the receipt verifyClient returned and a secret */
    r = tu_call(e, "verifyClient", "{\"appToken\": \"device-token-1\", \"tokenType\": \"sandbox\"}", &st);
    const char *receipt = tu_str(r, "receipt");
    if (EXPECT_OK(r, st)) {
        CHECKF(receipt && *receipt, "%s", tu_dump(r));
        CHECKF(tu_int(r, "suggestedTimeout", -1) == 7, "pushTimeoutSeconds 7: %s", tu_dump(r));
    }
    CHECKF(d.calls == 1 && d.bad_messages == 0, "%d calls, %d bad", d.calls, d.bad_messages);
    CHECK(!d.off_thread);
    json_t *m = json_array_get(d.messages, 0);
    CHECKF(streq(tu_str(m, "appToken"), "device-token-1") && streq(tu_str(m, "tokenType"), "sandbox"),
           "%s", tu_dump(m));
    CHECKF(streq(tu_str(m, "payload.phoneauth.receipt"), receipt), "%s", tu_dump(m));
    const char *secret = tu_str(m, "payload.phoneauth.secret");
    CHECKF(secret && strlen(secret) >= 16 && !streq(secret, receipt), "%s", tu_dump(m));
    json_decref(r);
    receipt = tu_str(m, "payload.phoneauth.receipt");

    /* the app hands the payload to canHandleNotification: as an object... */
    json_t *payload = last_push(&d);
    r = tu_callj(e, "canHandleNotification", json_pack("{s:O?}", "notification", payload), &st);
    if (EXPECT_OK(r, st))
        CHECKF(tu_bool(r, "handled") == 1 && streq(tu_str(r, "receipt"), receipt) &&
                   streq(tu_str(r, "secret"), secret),
               "%s", tu_dump(r));
    json_decref(r);
    /* ...or, as FCM data messages carry only strings, with "phoneauth" as JSON text */
    char *text = json_dumps(tu_get(payload, "phoneauth"), JSON_COMPACT);
    r = tu_callj(e, "canHandleNotification", json_pack("{s:{s:s?}}", "notification", "phoneauth", text), &st);
    if (EXPECT_OK(r, st))
        CHECKF(tu_bool(r, "handled") == 1 && streq(tu_str(r, "receipt"), receipt) &&
                   streq(tu_str(r, "secret"), secret),
               "%s", tu_dump(r));
    json_decref(r);
    free(text);
    /* the forwarding probe is the library's, but carries no receipt */
    r = tu_call(e, "canHandleNotification", "{\"notification\": {\"phoneauth\": {\"warning\": \"probe\"}}}", &st);
    if (EXPECT_OK(r, st))
        CHECKF(tu_bool(r, "handled") == 1 && !tu_get(r, "receipt") && !tu_get(r, "secret"), "%s", tu_dump(r));
    json_decref(r);

    /* the default token type */
    r = tu_call(e, "verifyClient", "{\"appToken\": \"device-token-2\"}", &st);
    EXPECT_OK(r, st);
    json_decref(r);
    m = json_array_get(d.messages, 1);
    CHECKF(streq(tu_str(m, "tokenType"), "unknown"), "%s", tu_dump(m));
    CHECKF(!streq(tu_str(m, "payload.phoneauth.receipt"), receipt), "receipt reused: %s", tu_dump(m));

    /* the proof lets the code go out, and the code signs in */
    char secret_copy[256] = "";
    snprintf(secret_copy, sizeof secret_copy, "%s", secret ? secret : "");
    json_t *v = verify(e, REAL, json_pack("{s:s?, s:s?}", "receipt", receipt, "secret", secret), NULL, &st);
    if (EXPECT_OK(v, st)) {
        const char *vid = tu_str(v, "verificationId");
        json_t *sms = vid ? tu_sms_wait(&s, vid, tu_timeout_ms(10000)) : NULL;
        char code[16];
        if (CHECKF(sms != NULL, "no SMS after verifyPhoneNumber with a receipt") &&
            CHECKF(tu_extract_code(tu_str(sms, "body"), 6, code), "%s", tu_dump(sms))) {
            json_t *u = sign_in(e, v, code);
            CHECKF(streq(tu_str(u, "user.phoneNumber"), REAL), "%s", tu_dump(u));
            json_decref(u);
        }
        json_decref(sms);
    }
    json_decref(v);

    /* a test number needs the proof too, while it is enforced */
    r = verify(e, TEST_NUMBER, NULL, NULL, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_APP_CREDENTIAL, "missingAppCredential");
    json_decref(r);
    phoneauth_close(e);

    /* the secret is a password: not kept in clear */
    char db[4096];
    snprintf(db, sizeof db, "%s/push.db", g_dir);
    if (secret_copy[0]) CHECKF(!tu_db_contains(db, secret_copy), "push secret in clear in %s", db);
out:
    device_destroy(&d);
    tu_sms_destroy(&s);
}

/* Wrong secret, reuse, a receipt of another engine, and the same receipt raced from 8 threads. */
#define N_RACERS 8
static pthread_barrier_t g_barrier;
typedef struct {
    phoneauth_engine *e;
    const char *params;
    int status;
    char reason[64];
} racer;

static void *racer_main(void *arg) {
    racer *r = arg;
    pthread_barrier_wait(&g_barrier);
    json_t *res = tu_call(r->e, "verifyPhoneNumber", r->params, &r->status);
    snprintf(r->reason, sizeof r->reason, "%s", tu_str(res, "error.details.reason") ? tu_str(res, "error.details.reason") : "");
    json_decref(res);
    return NULL;
}

static void test_bad_receipts(void) {
    tu_sms s;
    device d, d2;
    tu_sms_init(&s, NULL);
    device_init(&d);
    device_init(&d2);
    phoneauth_engine *e = tu_open(g_dir, "receipts", "{" BASE_CONFIG "}");
    phoneauth_engine *other = tu_open(g_dir, "other", "{" BASE_CONFIG "}");
    if (!e || !other) goto out;
    CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
    CHECK(phoneauth_set_push_sender(e, push_sender, &d) == PHONEAUTH_OK);
    CHECK(phoneauth_set_push_sender(other, push_sender, &d2) == PHONEAUTH_OK);
    int st;

    /* a wrong secret fails and uses the receipt up: the right one then fails too */
    json_t *proof = push_proof(e, &d);
    if (proof) {
        char wrong[300];
        snprintf(wrong, sizeof wrong, "x%s", tu_str(proof, "secret"));
        json_t *r = verify(e, REAL, json_pack("{s:s, s:s}", "receipt", tu_str(proof, "receipt"), "secret", wrong),
                           NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential");
        EXPECT_REASON(r, "wrongSecret");
        json_decref(r);
        r = verify(e, REAL, json_incref(proof), NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential");
        EXPECT_REASON(r, "alreadyUsed");
        json_decref(r);
        json_decref(proof);
    }

    /* a receipt works once */
    proof = push_proof(e, &d);
    if (proof) {
        json_t *r = verify(e, REAL, json_incref(proof), NULL, &st);
        EXPECT_OK(r, st);
        json_decref(r);
        r = verify(e, REAL, json_incref(proof), NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential");
        EXPECT_REASON(r, "alreadyUsed");
        json_decref(r);
        json_decref(proof);
    }

    /* a receipt of an engine on another database, and a made-up one, are unknown */
    proof = push_proof(other, &d2);
    if (proof) {
        json_t *r = verify(e, REAL, proof, NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential");
        EXPECT_REASON(r, "unknown");
        json_decref(r);
    }
    json_t *r = verify(e, REAL, json_pack("{s:s, s:s}", "receipt", "made-up", "secret", "made-up"), NULL, &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential");
    EXPECT_REASON(r, "unknown");
    json_decref(r);

    /* 8 threads with one receipt: exactly one gets a code */
    proof = push_proof(e, &d);
    if (proof) {
        json_t *p = json_pack("{s:s, s:O}", "phoneNumber", REAL, "appVerification", proof);
        char *params = json_dumps(p, JSON_COMPACT);
        json_decref(p);
        racer rc[N_RACERS];
        pthread_t t[N_RACERS];
        pthread_barrier_init(&g_barrier, NULL, N_RACERS);
        for (int i = 0; i < N_RACERS; i++) {
            rc[i] = (racer){e, params, -1, ""};
            CHECK(pthread_create(&t[i], NULL, racer_main, &rc[i]) == 0);
        }
        int ok = 0, used = 0;
        for (int i = 0; i < N_RACERS; i++) {
            pthread_join(t[i], NULL);
            ok += rc[i].status == PHONEAUTH_OK;
            used += rc[i].status == PHONEAUTH_ERR_INVALID_APP_CREDENTIAL && streq(rc[i].reason, "alreadyUsed");
        }
        pthread_barrier_destroy(&g_barrier);
        CHECKF(ok == 1 && used == N_RACERS - 1, "one receipt, %d racers: %d codes, %d alreadyUsed",
               N_RACERS, ok, used);
        free(params);
        json_decref(proof);
    }

    /* two codes went out (the single use and the race), none for the failures */
    tu_sms_wait_calls(&s, 2, tu_timeout_ms(10000));
    tu_sleep_ms(tu_timeout_ms(300));
    CHECKF(tu_sms_calls(&s) == 2, "2 SMS expected, got %d", tu_sms_calls(&s));
out:
    phoneauth_close(e);
    phoneauth_close(other);
    device_destroy(&d);
    device_destroy(&d2);
    tu_sms_destroy(&s);
}

/* A push service that refuses: appNotVerified, reason pushFailed. */
static void test_push_failure(void) {
    device d;
    device_init(&d);
    phoneauth_engine *e = tu_open(g_dir, "pushfail", "{" BASE_CONFIG "}");
    if (e) {
        CHECK(phoneauth_set_push_sender(e, push_sender, &d) == PHONEAUTH_OK);
        d.fail = 1;
        int st;
        json_t *r = tu_call(e, "verifyClient", "{\"appToken\": \"device-token\"}", &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_APP_NOT_VERIFIED, "appNotVerified");
        EXPECT_REASON(r, "pushFailed");
        CHECKF(!tu_get(r, "receipt"), "%s", tu_dump(r));
        CHECKF(d.calls == 1, "push sender called %d times", d.calls);
        json_decref(r);
        /* removed: no sender to fail */
        CHECK(phoneauth_set_push_sender(e, NULL, NULL) == PHONEAUTH_OK);
        r = tu_call(e, "verifyClient", "{\"appToken\": \"device-token\"}", &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_OPERATION_NOT_ALLOWED, "operationNotAllowed");
        EXPECT_REASON(r, "noPushSender");
        CHECKF(d.calls == 1, "removed push sender called: %d", d.calls);
        json_decref(r);
    }
    phoneauth_close(e);
    device_destroy(&d);
}

/* getCaptchaChallenge -> page -> callback URL -> canHandleURL -> verifyPhoneNumber -> verifier. */
static void test_captcha_flow(void) {
    tu_sms s;
    verifier v;
    tu_sms_init(&s, NULL);
    verifier_init(&v, "{\"success\":true,\"score\":0.9}");
    phoneauth_engine *e = tu_open(g_dir, "captcha", "{" BASE_CONFIG "}");
    if (!e) goto out;
    CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
    CHECK(phoneauth_set_captcha_verifier(e, captcha_verifier, &v) == PHONEAUTH_OK);
    int st;

    /* the page URL: pageUrl with the event, the scheme and the language (fr-CA -> fr) */
    json_t *r = tu_call(e, "getCaptchaChallenge", "{\"callbackScheme\": \"" SCHEME "\", \"languageCode\": \"fr-CA\"}", &st);
    char event[256] = "", want[1024];
    if (EXPECT_OK(r, st) && CHECKF(tu_str(r, "eventId") && *tu_str(r, "eventId"), "%s", tu_dump(r))) {
        snprintf(event, sizeof event, "%s", tu_str(r, "eventId"));
        snprintf(want, sizeof want, PAGE "?eventId=%s&callbackScheme=" SCHEME "&hl=fr", event);
        CHECKF(streq(tu_str(r, "url"), want), "want %s: %s", want, tu_dump(r));
    }
    json_decref(r);
    /* unknown language: defaultLanguageCode; each challenge its own event */
    r = tu_call(e, "getCaptchaChallenge", "{\"callbackScheme\": \"" SCHEME "\", \"languageCode\": \"xx-YY\"}", &st);
    if (EXPECT_OK(r, st)) {
        snprintf(want, sizeof want, PAGE "?eventId=%s&callbackScheme=" SCHEME "&hl=en", tu_str(r, "eventId"));
        CHECKF(streq(tu_str(r, "url"), want) && !streq(tu_str(r, "eventId"), event), "want %s: %s", want, tu_dump(r));
    }
    json_decref(r);

    /* the page redirects to the app with the token (which has characters to encode) */
    const char *token = "03AGdBq2+x/y=z&w";
    char url[4096];
    callback_url(url, sizeof url, SCHEME, event, "captchaToken", token);
    r = handle_url(e, url, &st);
    char got[256] = "";
    if (EXPECT_OK(r, st) && CHECKF(tu_bool(r, "handled") == 1 && streq(tu_str(r, "captchaToken"), token),
                                   "%s -> %s", url, tu_dump(r)))
        snprintf(got, sizeof got, "%s", tu_str(r, "captchaToken"));
    json_decref(r);
    /* each event is handled once */
    expect_not_handled(e, url, "second time");
    CHECK(v.calls == 0); /* canHandleURL does not check the token: verifyPhoneNumber does */

    /* the token gets the code; the verifier saw it and the caller's address */
    json_t *verification = verify(e, REAL, json_pack("{s:s}", "captchaToken", got), "203.0.113.7", &st);
    if (EXPECT_OK(verification, st)) sms_arrives(&s, verification);
    json_decref(verification);
    CHECKF(v.calls == 1 && !v.off_thread, "%d calls", v.calls);
    CHECKF(streq(tu_str(v.request, "token"), token) && streq(tu_str(v.request, "clientIp"), "203.0.113.7"),
           "%s", tu_dump(v.request));
    CHECKF(v.size == 1024, "response_size %zu", v.size);
    /* no clientIp in the call, none in the request */
    r = verify(e, REAL, json_pack("{s:s}", "captchaToken", "tok-2"), NULL, &st);
    EXPECT_OK(r, st);
    json_decref(r);
    CHECKF(streq(tu_str(v.request, "token"), "tok-2") && !tu_get(v.request, "clientIp"), "%s", tu_dump(v.request));

    /* a URL of another scheme does not use the event up */
    char ev2[256];
    if (challenge(e, SCHEME, ev2)) {
        callback_url(url, sizeof url, "other.app", ev2, "captchaToken", "tok");
        expect_not_handled(e, url, "another scheme");
        callback_url(url, sizeof url, SCHEME, ev2, "captchaToken", "tok");
        r = handle_url(e, url, &st);
        CHECKF(st == PHONEAUTH_OK && tu_bool(r, "handled") == 1 && streq(tu_str(r, "captchaToken"), "tok"),
               "%s", tu_dump(r));
        json_decref(r);
    }
    /* the page reports an error instead of a token. The contract's success result
     * {"handled": true, "error": "..."} has a top-level "error" key, which tu_call's shape check
     * (and any caller telling failures by that key) takes for a failure: read it raw here. */
    if (challenge(e, SCHEME, ev2)) {
        callback_url(url, sizeof url, SCHEME, ev2, "error", "cancelled");
        json_t *p = json_pack("{s:s}", "url", url);
        char *params = json_dumps(p, JSON_COMPACT), *out = NULL;
        json_decref(p);
        st = phoneauth_call(e, "canHandleURL", params, &out);
        r = out ? json_loads(out, 0, NULL) : NULL;
        CHECKF(st == PHONEAUTH_OK && tu_bool(r, "handled") == 1 && streq(tu_str(r, "error"), "cancelled") &&
                   !tu_get(r, "captchaToken"),
               "%d %s", st, out ? out : "NULL");
        json_decref(r);
        phoneauth_free(out);
        free(params);
    }

    /* the verifier's verdicts; none of them sends a code */
    int sms_before = tu_sms_wait_calls(&s, 2, tu_timeout_ms(10000));
    CHECKF(sms_before == 2, "2 SMS expected, got %d", sms_before);
    const struct {
        const char *answer;
        int rc;
        const char *reason;
    } verdicts[] = {
        {"{\"success\":false}", 0, "rejected"},
        {"{\"success\":false,\"score\":0.9}", 0, "rejected"},
        {"{\"success\":true,\"score\":0.2}", 0, "lowScore"},     /* captcha.minScore 0.5 */
        {"{\"success\":true,\"score\":0.9}", 1, "verifierFailed"}, /* could not check */
        {"not json {", 0, "verifierFailed"},
        {"{\"success\":\"yes\"}", 0, "verifierFailed"},
        {"[true]", 0, "verifierFailed"},
        {NULL, 0, "verifierFailed"}, /* wrote nothing */
    };
    for (size_t i = 0; i < sizeof verdicts / sizeof verdicts[0]; i++) {
        v.answer = verdicts[i].answer;
        v.rc = verdicts[i].rc;
        int calls = v.calls;
        /* each token proves one request, right or wrong: a fresh one per verdict */
        char token[32];
        snprintf(token, sizeof token, "verdict-%zu", i);
        r = verify(e, REAL, json_pack("{s:s}", "captchaToken", token), NULL, &st);
        CHECKF(st == PHONEAUTH_ERR_CAPTCHA_CHECK_FAILED &&
                   streq(tu_str(r, "error.code"), "captchaCheckFailed") &&
                   streq(tu_str(r, "error.details.reason"), verdicts[i].reason),
               "answer %s, rc %d: want %s, got %d %s", verdicts[i].answer ? verdicts[i].answer : "(none)",
               verdicts[i].rc, verdicts[i].reason, st, tu_dump(r));
        CHECKF(v.calls == calls + 1, "verifier not called for %s", verdicts[i].reason);
        json_decref(r);
    }
    /* success without a score is a pass */
    v.answer = "{\"success\":true}";
    v.rc = 0;
    r = verify(e, REAL, json_pack("{s:s}", "captchaToken", "tok-pass"), NULL, &st);
    EXPECT_OK(r, st);
    json_decref(r);
    /* a token is used once: presented again it is refused without asking the verifier */
    int calls_before = v.calls;
    r = verify(e, REAL, json_pack("{s:s}", "captchaToken", "tok-pass"), NULL, &st);
    CHECKF(st == PHONEAUTH_ERR_CAPTCHA_CHECK_FAILED && streq(tu_str(r, "error.details.reason"), "alreadyUsed"),
           "reused token: %s", tu_dump(r));
    CHECK(v.calls == calls_before);
    json_decref(r);
    tu_sms_wait_calls(&s, sms_before + 1, tu_timeout_ms(10000));
    tu_sleep_ms(tu_timeout_ms(300));
    CHECKF(tu_sms_calls(&s) == sms_before + 1, "failed checks sent SMS: %d", tu_sms_calls(&s) - sms_before - 1);
out:
    phoneauth_close(e);
    json_decref(v.request);
    tu_sms_destroy(&s);
}

/* pageUrl with a query of its own; none configured. */
static void test_captcha_page(void) {
    phoneauth_engine *e = tu_open(g_dir, "pagequery", "{\"captcha\": {\"pageUrl\": \"" PAGE "?site=abc\"}}");
    int st;
    if (e) {
        json_t *r = tu_call(e, "getCaptchaChallenge", "{\"callbackScheme\": \"my-app.x\"}", &st);
        char want[1024];
        if (EXPECT_OK(r, st)) {
            snprintf(want, sizeof want, PAGE "?site=abc&eventId=%s&callbackScheme=my-app.x&hl=en", tu_str(r, "eventId"));
            CHECKF(streq(tu_str(r, "url"), want), "want %s: %s", want, tu_dump(r));
        }
        json_decref(r);
    }
    phoneauth_close(e);
    e = tu_open(g_dir, "nopage", NULL);
    if (e) {
        json_t *r = tu_call(e, "getCaptchaChallenge", "{\"callbackScheme\": \"" SCHEME "\"}", &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_OPERATION_NOT_ALLOWED, "operationNotAllowed");
        EXPECT_REASON(r, "noCaptchaPage");
        json_decref(r);
    }
    phoneauth_close(e);
}

/* Pushes and URLs that are not the library's, or broken: handled false, never an error. */
static void test_malformed(void) {
    phoneauth_engine *e = tu_open(g_dir, "malformed", "{" BASE_CONFIG "}");
    if (!e) return;
    const char *notifications[] = {
        "\"text\"", "5", "[]", "{}", "true",
        "{\"aps\": {\"receipt\": \"r\", \"secret\": \"s\"}}",     /* another key */
        "{\"phoneauth\": []}", "{\"phoneauth\": 5}", "{\"phoneauth\": null}",
        "{\"phoneauth\": \"{bad json\"}", "{\"phoneauth\": \"\\\"a string\\\"\"}",
        "{\"phoneauth\": \"[1, 2]\"}", "{\"phoneauth\": \"\"}",
        "{\"phoneauth\": {}}",
        "{\"phoneauth\": {\"receipt\": \"r\"}}",                  /* no secret */
        "{\"phoneauth\": {\"secret\": \"s\"}}",
        "{\"phoneauth\": {\"receipt\": 1, \"secret\": \"s\"}}",
        "{\"phoneauth\": {\"receipt\": \"r\", \"secret\": null}}",
        "{\"phoneauth\": \"{\\\"receipt\\\": \\\"r\\\"}\"}",      /* text form, no secret */
    };
    for (size_t i = 0; i < sizeof notifications / sizeof notifications[0]; i++) {
        char params[512];
        snprintf(params, sizeof params, "{\"notification\": %s}", notifications[i]);
        int st;
        json_t *r = tu_call(e, "canHandleNotification", params, &st);
        CHECKF(st == PHONEAUTH_OK && tu_bool(r, "handled") == 0 && !tu_get(r, "receipt") && !tu_get(r, "secret"),
               "%s -> %d %s", params, st, tu_dump(r));
        json_decref(r);
    }

    /* each URL gets a fresh event, so only its own fault can make it unhandled */
    enum { WRONG_HOST, WRONG_PATH, NO_DEEP_LINK, NOT_ENCODED, NO_TOKEN, EMPTY_TOKEN, TOKEN_AND_ERROR,
           TWO_TOKENS, UNKNOWN_EVENT, NO_EVENT, BAD_ESCAPE, NOT_A_URL, INNER_NOT_A_URL, OTHER_SCHEMES_EVENT,
           N_CASES };
    const char *names[N_CASES] = {"wrong host", "wrong path", "no deep_link_id", "deep link not encoded",
                                  "no token", "empty token", "token and error", "two tokens",
                                  "unknown event", "no event", "bad escape", "not a URL",
                                  "deep link not a URL", "event of another scheme"};
    for (int c = 0; c < N_CASES; c++) {
        char ev[256], url[4096], inner[1024];
        if (!challenge(e, c == OTHER_SCHEMES_EVENT ? "other.app" : SCHEME, ev)) continue;
        callback_url(url, sizeof url, SCHEME, ev, "captchaToken", "tok");
        char *deep = strstr(url, "?deep_link_id=");
        snprintf(inner, sizeof inner, PAGE "/done?eventId=%s&captchaToken=tok", ev);
        switch (c) {
        case WRONG_HOST: memcpy(strstr(url, "phoneauth"), "phoneaut0", 9); break;
        case WRONG_PATH: memcpy(strstr(url, "/link?"), "/lini", 5); break;
        case NO_DEEP_LINK: memcpy(deep, "?deep_link_xx", 13); break;
        case NOT_ENCODED: snprintf(url, sizeof url, SCHEME "://phoneauth/link?deep_link_id=%s", inner); break;
        case NO_TOKEN: callback_url(url, sizeof url, SCHEME, ev, NULL, NULL); break;
        case EMPTY_TOKEN: callback_url(url, sizeof url, SCHEME, ev, "captchaToken", ""); break;
        case TOKEN_AND_ERROR:
        case TWO_TOKENS: /* the second parameter is a real one of the inner query */
            strcat(inner, c == TWO_TOKENS ? "&captchaToken=tik" : "&error=x");
            snprintf(url, sizeof url, SCHEME "://phoneauth/link?deep_link_id=");
            pct_append(url, sizeof url, inner);
            break;
        case UNKNOWN_EVENT: callback_url(url, sizeof url, SCHEME, "01unknownevent", "captchaToken", "tok"); break;
        case NO_EVENT:
            snprintf(url, sizeof url, SCHEME "://phoneauth/link?deep_link_id=");
            pct_append(url, sizeof url, PAGE "/done?captchaToken=tok");
            break;
        case BAD_ESCAPE: strcat(url, "%ZZ"); break;
        case NOT_A_URL: snprintf(url, sizeof url, "not a url %s", ev); break;
        case INNER_NOT_A_URL: snprintf(url, sizeof url, SCHEME "://phoneauth/link?deep_link_id=notaurl"); break;
        default: break;
        }
        expect_not_handled(e, url, names[c]);
    }
    phoneauth_close(e);
}

/* When the proof is needed: enforce, the default with and without callbacks, the MFA calls. */
static void test_enforcement(void) {
    device d;
    verifier v;
    device_init(&d);
    verifier_init(&v, "{\"success\":true}");
    int st;

    /* enforce true needs no callback to require the proof */
    phoneauth_engine *e = tu_open(g_dir, "enforce", "{" BASE_CONFIG ", \"appVerification\": {\"enforce\": true}}");
    if (e) {
        json_t *r = verify(e, REAL, NULL, NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_APP_CREDENTIAL, "missingAppCredential");
        json_decref(r);
        /* and a captcha token cannot be checked without a verifier */
        r = verify(e, REAL, json_pack("{s:s}", "captchaToken", "tok"), NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_CAPTCHA_CHECK_FAILED, "captchaCheckFailed");
        EXPECT_REASON(r, "noVerifier");
        json_decref(r);
    }
    phoneauth_close(e);

    /* enforce false: a push sender changes nothing, a proof is ignored */
    e = tu_open(g_dir, "noenforce", "{" BASE_CONFIG ", \"appVerification\": {\"enforce\": false}}");
    if (e) {
        CHECK(phoneauth_set_push_sender(e, push_sender, &d) == PHONEAUTH_OK);
        CHECK(phoneauth_set_captcha_verifier(e, captcha_verifier, &v) == PHONEAUTH_OK);
        json_t *r = verify(e, REAL, NULL, NULL, &st);
        EXPECT_OK(r, st);
        json_decref(r);
        r = verify(e, REAL, json_pack("{s:s, s:s}", "receipt", "made-up", "secret", "made-up"), NULL, &st);
        EXPECT_OK(r, st);
        json_decref(r);
        r = verify(e, REAL, json_pack("{s:s}", "captchaToken", "tok"), NULL, &st);
        EXPECT_OK(r, st);
        json_decref(r);
        CHECKF(v.calls == 0, "verifier called %d times while not enforced", v.calls);
        /* verifyClient still works */
        json_t *proof = push_proof(e, &d);
        json_decref(proof);
    }
    phoneauth_close(e);

    /* default: a captcha verifier alone turns it on, for good: removing the hooks keeps it on */
    e = tu_open(g_dir, "default", "{" BASE_CONFIG "}");
    if (e) {
        CHECK(phoneauth_set_captcha_verifier(e, captcha_verifier, &v) == PHONEAUTH_OK);
        json_t *r = verify(e, REAL, NULL, NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_APP_CREDENTIAL, "missingAppCredential");
        json_decref(r);
        CHECK(phoneauth_set_push_sender(e, push_sender, &d) == PHONEAUTH_OK);
        CHECK(phoneauth_set_captcha_verifier(e, NULL, NULL) == PHONEAUTH_OK);
        r = verify(e, REAL, NULL, NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_APP_CREDENTIAL, "missingAppCredential");
        json_decref(r);
        CHECK(phoneauth_set_push_sender(e, NULL, NULL) == PHONEAUTH_OK);
        r = verify(e, REAL, NULL, NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_APP_CREDENTIAL, "missingAppCredential");
        json_decref(r);
    }
    phoneauth_close(e);

    /* mfaEnrollStart and verifyPhoneNumber with a hint need the proof too */
    e = tu_open(g_dir, "mfa", "{" BASE_CONFIG "}");
    if (e) {
        CHECK(phoneauth_set_push_sender(e, push_sender, &d) == PHONEAUTH_OK);
        json_t *vf = verify(e, TEST_NUMBER, push_proof(e, &d), NULL, &st);
        json_t *user = EXPECT_OK(vf, st) ? sign_in(e, vf, TEST_CODE) : NULL;
        json_decref(vf);
        const char *id_token = tu_str(user, "idToken");
        json_t *r = tu_callj(e, "mfaEnrollStart", json_pack("{s:s?, s:s}", "idToken", id_token, "phoneNumber", SECOND_NUMBER), &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_APP_CREDENTIAL, "missingAppCredential");
        json_decref(r);
        json_t *enrol = tu_callj(e, "mfaEnrollStart",
                                 json_pack("{s:s?, s:s, s:o?}", "idToken", id_token, "phoneNumber", SECOND_NUMBER,
                                           "appVerification", push_proof(e, &d)),
                                 &st);
        if (EXPECT_OK(enrol, st)) {
            r = tu_callj(e, "mfaEnrollFinalize",
                         json_pack("{s:s?, s:{s:s, s:s?, s:s}}", "idToken", id_token, "credential", "providerId",
                                   "phone", "verificationId", tu_str(enrol, "verificationId"),
                                   "verificationCode", SECOND_CODE),
                         &st);
            EXPECT_OK(r, st);
            json_decref(r);
            /* the first factor again: secondFactorRequired, then the hint */
            vf = verify(e, TEST_NUMBER, push_proof(e, &d), NULL, &st);
            r = tu_callj(e, "signInWithCredential",
                         json_pack("{s:{s:s, s:s?, s:s}}", "credential", "providerId", "phone", "verificationId",
                                   tu_str(vf, "verificationId"), "verificationCode", TEST_CODE),
                         &st);
            EXPECT_ERR(r, st, PHONEAUTH_ERR_SECOND_FACTOR_REQUIRED, "secondFactorRequired");
            const char *session = tu_str(r, "error.details.session");
            const char *hint = tu_str(json_array_get(tu_get(r, "error.details.hints"), 0), "uid");
            json_t *h = tu_callj(e, "verifyPhoneNumber",
                                 json_pack("{s:s?, s:s?}", "multiFactorHint", hint, "multiFactorSession", session), &st);
            EXPECT_ERR(h, st, PHONEAUTH_ERR_MISSING_APP_CREDENTIAL, "missingAppCredential");
            json_decref(h);
            h = tu_callj(e, "verifyPhoneNumber",
                         json_pack("{s:s?, s:s?, s:o?}", "multiFactorHint", hint, "multiFactorSession", session,
                                   "appVerification", push_proof(e, &d)),
                         &st);
            EXPECT_OK(h, st);
            json_decref(h);
            json_decref(r);
            json_decref(vf);
        }
        json_decref(enrol);
        json_decref(user);
    }
    phoneauth_close(e);
    json_decref(v.request);
    device_destroy(&d);
}

/* disabledForTesting: no proof needed, only test numbers, whatever is installed or given. */
static void test_disabled_for_testing(void) {
    device d;
    device_init(&d);
    phoneauth_engine *e = tu_open(g_dir, "disabled", "{" BASE_CONFIG ", \"appVerification\": {\"disabledForTesting\": true}}");
    if (e) {
        CHECK(phoneauth_set_push_sender(e, push_sender, &d) == PHONEAUTH_OK);
        int st;
        json_t *v = verify(e, TEST_NUMBER, NULL, NULL, &st);
        json_t *u = EXPECT_OK(v, st) ? sign_in(e, v, TEST_CODE) : NULL;
        CHECKF(streq(tu_str(u, "user.phoneNumber"), TEST_NUMBER), "%s", tu_dump(u));
        json_decref(u);
        json_decref(v);
        json_t *r = verify(e, REAL, NULL, NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_APP_NOT_VERIFIED, "appNotVerified");
        json_decref(r);
        r = verify(e, REAL, push_proof(e, &d), NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_APP_NOT_VERIFIED, "appNotVerified");
        CHECKF(streq(tu_str(r, "error.details.setting"), "appVerification.disabledForTesting"), "%s", tu_dump(r));
        json_decref(r);
    }
    phoneauth_close(e);
    device_destroy(&d);
}

/* Bad parameters to the new methods and to appVerification; bad configuration. */
static void test_bad_params(void) {
    device d;
    device_init(&d);
    phoneauth_engine *e = tu_open(g_dir, "badparams", "{" BASE_CONFIG "}");
    if (!e) goto out;
    CHECK(phoneauth_set_push_sender(e, push_sender, &d) == PHONEAUTH_OK);
    const struct {
        const char *method, *params;
        int status;
        const char *code, *field; /* field: details.field, when not NULL */
    } cases[] = {
        {"verifyClient", NULL, PHONEAUTH_ERR_MISSING_APP_TOKEN, "missingAppToken", NULL},
        {"verifyClient", "{}", PHONEAUTH_ERR_MISSING_APP_TOKEN, "missingAppToken", NULL},
        {"verifyClient", "{\"appToken\": \"\"}", PHONEAUTH_ERR_MISSING_APP_TOKEN, "missingAppToken", NULL},
        {"verifyClient", "{\"appToken\": 5}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "appToken"},
        {"verifyClient", "{\"appToken\": \"t\", \"tokenType\": \"voip\"}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "tokenType"},
        {"verifyClient", "{\"appToken\": \"t\", \"tokenType\": 1}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "tokenType"},
        {"verifyClient", "{\"appToken\": \"t\", \"phoneNumber\": \"" REAL "\"}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "phoneNumber"},
        {"verifyClient", "[]", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", NULL},
        {"canHandleNotification", NULL, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "notification"},
        {"canHandleNotification", "{}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "notification"},
        {"canHandleNotification", "{\"notification\": {}, \"extra\": 1}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "extra"},
        {"canHandleNotification", "{\"notification\": {", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", NULL},
        {"getCaptchaChallenge", NULL, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "callbackScheme"},
        {"getCaptchaChallenge", "{\"callbackScheme\": \"\"}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "callbackScheme"},
        {"getCaptchaChallenge", "{\"callbackScheme\": 5}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "callbackScheme"},
        {"getCaptchaChallenge", "{\"callbackScheme\": \"1app\"}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "callbackScheme"},
        {"getCaptchaChallenge", "{\"callbackScheme\": \"my app\"}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "callbackScheme"},
        {"getCaptchaChallenge", "{\"callbackScheme\": \"app://x\"}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "callbackScheme"},
        {"getCaptchaChallenge", "{\"callbackScheme\": \"app\", \"languageCode\": 5}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "languageCode"},
        {"getCaptchaChallenge", "{\"callbackScheme\": \"app\", \"eventId\": \"x\"}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "eventId"},
        {"canHandleURL", NULL, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "url"},
        {"canHandleURL", "{\"url\": 5}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "url"},
        {"canHandleURL", "{\"url\": \"x\", \"scheme\": \"y\"}", PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument", "scheme"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": 5}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": \"tok\"}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": {\"receipt\": 5, \"secret\": \"s\"}}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification.receipt"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": {\"captchaToken\": true}}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification.captchaToken"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": {\"captchaToken\": \"t\", \"x\": 1}}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification.x"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": {}}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": {\"receipt\": \"r\"}}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": {\"secret\": \"s\"}}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": {\"receipt\": \"r\", \"secret\": \"s\", \"captchaToken\": \"t\"}}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification"},
        {"verifyPhoneNumber", "{\"phoneNumber\": \"" REAL "\", \"appVerification\": {\"captchaToken\": \"\"}}", PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, "invalidAppCredential", "appVerification"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        json_t *r = tu_call(e, cases[i].method, cases[i].params, &st);
        const char *field = tu_str(r, "error.details.field");
        CHECKF(st == cases[i].status && streq(tu_str(r, "error.code"), cases[i].code) &&
                   (!cases[i].field || streq(field, cases[i].field)),
               "%s %s: want %d %s (field %s), got %d %s", cases[i].method,
               cases[i].params ? cases[i].params : "NULL", cases[i].status, cases[i].code,
               cases[i].field ? cases[i].field : "-", st, tu_dump(r));
        json_decref(r);
    }
    CHECKF(d.calls == 0, "a bad verifyClient pushed %d times", d.calls);
out:
    phoneauth_close(e);
    device_destroy(&d);

    const char *configs[][2] = {
        {"{\"appVerification\": {\"pushTimeoutSeconds\": 0}}", "appVerification.pushTimeoutSeconds"},
        {"{\"appVerification\": {\"pushTimeoutSeconds\": 121}}", "appVerification.pushTimeoutSeconds"},
        {"{\"appVerification\": {\"receiptTtlSeconds\": 29}}", "appVerification.receiptTtlSeconds"},
        {"{\"appVerification\": {\"receiptTtlSeconds\": 3601}}", "appVerification.receiptTtlSeconds"},
        {"{\"appVerification\": {\"enforce\": \"yes\"}}", "appVerification.enforce"},
        {"{\"appVerification\": {\"captcha\": true}}", "appVerification.captcha"},
        {"{\"captcha\": {\"minScore\": 1.5}}", "captcha.minScore"},
        {"{\"captcha\": {\"minScore\": -0.1}}", "captcha.minScore"},
        {"{\"captcha\": {\"pageUrl\": \"not a url\"}}", "captcha.pageUrl"},
        {"{\"captcha\": {\"pageUrl\": \"ftp://auth.example.com/captcha\"}}", "captcha.pageUrl"},
        {"{\"captcha\": {\"pageUrl\": \"" PAGE "#frag\"}}", "captcha.pageUrl"},
        {"{\"captcha\": {\"siteKey\": \"k\"}}", "captcha.siteKey"},
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        char db[4096];
        snprintf(db, sizeof db, "%s/badconfig.db", g_dir);
        json_t *cfg = json_loads(configs[i][0], 0, NULL);
        tu_set_database(cfg, db);
        char *text = json_dumps(cfg, JSON_COMPACT);
        json_decref(cfg);
        char *err = NULL;
        phoneauth_engine *bad = phoneauth_open(text, &err);
        json_t *r = err ? json_loads(err, 0, NULL) : NULL;
        CHECKF(!bad && tu_int(r, "error.status", 0) == PHONEAUTH_ERR_INVALID_CONFIGURATION &&
                   streq(tu_str(r, "error.details.key"), configs[i][1]),
               "%s -> %s", configs[i][0], err ? err : "accepted");
        phoneauth_close(bad);
        json_decref(r);
        phoneauth_free(err);
        free(text);
    }
}

int main(void) {
    g_dir = tu_tmpdir();
    test_null_engine();
    test_push_flow();
    test_bad_receipts();
    test_push_failure();
    test_captcha_flow();
    test_captcha_page();
    test_malformed();
    test_enforcement();
    test_disabled_for_testing();
    test_bad_params();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
