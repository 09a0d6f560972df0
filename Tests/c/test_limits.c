/* test_limits.c: abuse resistance: the log sink and its events, send limits per number, IP,
 * project and region, region and line-type policies, configuration errors, the lockout after
 * consecutive wrong codes, test numbers being exempt, and the per-number limit holding across
 * threads and across two engines on one database. */
#include "testutil.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *g_dir;

/* ---- log sink capture ------------------------------------------------------------------------ */

typedef struct {
    pthread_mutex_t mu;
    json_t *events;     /* parsed events, each with "_onCaller" added */
    json_t *raw;        /* the texts as received, to search for leaked secrets */
    int bad;            /* events that were not an object with "event" and "time" strings */
    pthread_t creator;
} sink_log;

static void log_init(sink_log *l) {
    pthread_mutex_init(&l->mu, NULL);
    l->events = json_array();
    l->raw = json_array();
    l->bad = 0;
    l->creator = pthread_self();
}

static void log_destroy(sink_log *l) {
    json_decref(l->events);
    json_decref(l->raw);
    pthread_mutex_destroy(&l->mu);
}

/* The sink may run on several threads at once: everything goes under the mutex. */
static void log_sink(void *ctx, const char *event_json) {
    sink_log *l = ctx;
    json_t *ev = event_json ? json_loads(event_json, 0, NULL) : NULL;
    int on_caller = pthread_equal(pthread_self(), l->creator);
    pthread_mutex_lock(&l->mu);
    json_array_append_new(l->raw, json_string(event_json ? event_json : ""));
    if (json_is_object(ev) && json_is_string(json_object_get(ev, "event")) &&
        json_is_string(json_object_get(ev, "time"))) {
        json_object_set_new(ev, "_onCaller", json_boolean(on_caller));
        json_array_append(l->events, ev);
    } else {
        l->bad++;
    }
    pthread_mutex_unlock(&l->mu);
    json_decref(ev);
}

static int log_total(sink_log *l) {
    pthread_mutex_lock(&l->mu);
    int n = (int)json_array_size(l->raw);
    pthread_mutex_unlock(&l->mu);
    return n;
}

static int log_count(sink_log *l, const char *name) {
    int n = 0;
    size_t i;
    json_t *ev;
    pthread_mutex_lock(&l->mu);
    json_array_foreach(l->events, i, ev) {
        if (strcmp(tu_str(ev, "event"), name) == 0) n++;
    }
    pthread_mutex_unlock(&l->mu);
    return n;
}

/* The last event of that name (new reference) or NULL. */
static json_t *log_last(sink_log *l, const char *name) {
    json_t *found = NULL, *ev;
    size_t i;
    pthread_mutex_lock(&l->mu);
    json_array_foreach(l->events, i, ev) {
        if (strcmp(tu_str(ev, "event"), name) == 0) found = ev;
    }
    json_incref(found);
    pthread_mutex_unlock(&l->mu);
    return found;
}

/* Polls until n events of that name arrived (delivery-thread events come late). */
static int log_wait(sink_log *l, const char *name, int n, int timeout_ms) {
    int waited = 0, got;
    while ((got = log_count(l, name)) < n && waited < timeout_ms) {
        tu_sleep_ms(10);
        waited += 10;
    }
    return got;
}

static int log_contains(sink_log *l, const char *needle) {
    int found = 0;
    size_t i;
    json_t *s;
    pthread_mutex_lock(&l->mu);
    json_array_foreach(l->raw, i, s) {
        if (strstr(json_string_value(s), needle)) found = 1;
    }
    pthread_mutex_unlock(&l->mu);
    return found;
}

/* YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM) */
static int is_rfc3339(const char *s) {
    static const char pat[] = "dddd-dd-ddTdd:dd:dd";
    if (!s) return 0;
    for (size_t i = 0; i < sizeof pat - 1; i++) {
        if (pat[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != pat[i]) return 0;
    }
    s += sizeof pat - 1;
    if (*s == '.') {
        if (!isdigit((unsigned char)*++s)) return 0;
        while (isdigit((unsigned char)*s)) s++;
    }
    if (*s == 'Z') return s[1] == 0;
    return (*s == '+' || *s == '-') && isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) &&
           s[3] == ':' && isdigit((unsigned char)s[4]) && isdigit((unsigned char)s[5]) && s[6] == 0;
}

static int str_is(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* ---- calls ----------------------------------------------------------------------------------- */

static json_t *verify(phoneauth_engine *e, const char *phone, const char *ip, int *st) {
    return tu_callj(e, "verifyPhoneNumber",
                    json_pack("{s:s, s:s*}", "phoneNumber", phone, "clientIp", ip), st);
}

/* verifyPhoneNumber that must succeed and whose SMS must arrive; fills vid and code. */
static int start(phoneauth_engine *e, tu_sms *s, const char *phone, char vid[512], char code[16]) {
    int st;
    json_t *v = verify(e, phone, NULL, &st);
    int ok = EXPECT_OK(v, st);
    const char *id = tu_str(v, "verificationId");
    json_t *m = ok && id ? tu_sms_wait(s, id, tu_timeout_ms(15000)) : NULL;
    ok = ok && CHECKF(m != NULL, "no SMS for %s", phone) &&
         CHECKF(tu_extract_code(tu_str(m, "body"), (int)tu_int(v, "codeLength", 6), code), "%s",
                tu_dump(m));
    if (ok) snprintf(vid, 512, "%s", id);
    json_decref(m);
    json_decref(v);
    return ok;
}

static json_t *sign_in(phoneauth_engine *e, const char *vid, const char *code, const char *ip,
                       int *st) {
    return tu_callj(e, "signInWithCredential",
                    json_pack("{s:{s:s, s:s, s:s}, s:s*}", "credential", "providerId", "phone",
                              "verificationId", vid, "verificationCode", code, "clientIp", ip),
                    st);
}

/* A code that is certainly wrong: the right one with its last digit changed. */
static void wrong_code(const char *code, char out[16]) {
    snprintf(out, 16, "%s", code);
    size_t n = strlen(out);
    if (n) out[n - 1] = (char)('0' + (out[n - 1] - '0' + 1) % 10);
}

/* Checks a send-limit refusal: status, code name and details {reason, limit, scope, retryAfter}. */
#define EXPECT_LIMIT(res, st, want_st, want_code, limit, scope) \
    expect_limit(__FILE__, __LINE__, (res), (st), (want_st), (want_code), (limit), (scope))
static int expect_limit(const char *file, int line, json_t *res, int st, int want_st,
                        const char *want_code, const char *limit, const char *scope) {
    if (!tu_expect_err(file, line, res, st, want_st, want_code)) return 0;
    return tu_check(str_is(tu_str(res, "error.details.reason"), "rateLimit") &&
                        str_is(tu_str(res, "error.details.limit"), limit) &&
                        str_is(tu_str(res, "error.details.scope"), scope) &&
                        tu_int(res, "error.details.retryAfterSeconds", -1) >= 1,
                    file, line, "rate-limit details", "want limit %s, scope %s: %s", limit, scope,
                    tu_dump(res));
}

/* Waits for n SMS, then a little longer to see that no more come. */
static int sms_settle(tu_sms *s, int n) {
    tu_sms_wait_calls(s, n, tu_timeout_ms(15000));
    tu_sleep_ms(tu_timeout_ms(300));
    return tu_sms_calls(s);
}

/* ---- the log sink ---------------------------------------------------------------------------- */

static void test_sink_null_engine(void) {
    sink_log l;
    log_init(&l);
    CHECK(phoneauth_set_log_sink(NULL, log_sink, &l) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_set_log_sink(NULL, NULL, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    log_destroy(&l);
}

/* Default quotas (5 SMS per number per hour), events of every kind but lockout, nothing secret in
 * them, and none once the sink is removed. */
static void test_sink_and_number_limit(void) {
    static const char *phone = "+16505553434", *ip = "198.51.100.23";
    tu_sms s;
    sink_log l;
    tu_sms_init(&s, NULL);
    log_init(&l);
    phoneauth_engine *e = tu_open(g_dir, "sink", NULL);
    if (!e) goto out;
    CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
    CHECK(phoneauth_set_log_sink(e, log_sink, &l) == PHONEAUTH_OK);

    /* secrets the events must never contain */
    json_t *secrets = json_array();
    char vid[512], code[16], bad[16];
    int st;

    /* 1st send: a wrong code, then the right one */
    if (start(e, &s, phone, vid, code)) {
        json_array_append_new(secrets, json_string(code));
        json_array_append_new(secrets, json_string(vid));
        wrong_code(code, bad);
        json_t *r = sign_in(e, vid, bad, ip, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
        json_decref(r);
        r = sign_in(e, vid, code, ip, &st);
        if (EXPECT_OK(r, st)) {
            json_array_append_new(secrets, json_string(tu_str(r, "idToken")));
            json_array_append_new(secrets, json_string(tu_str(r, "refreshToken")));
            json_t *ev = log_last(&l, "signInSucceeded");
            CHECKF(ev && str_is(tu_str(ev, "uid"), tu_str(r, "user.uid")) &&
                       str_is(tu_str(ev, "provider"), "phone") && tu_bool(ev, "isNewUser") == 1 &&
                       str_is(tu_str(ev, "clientIp"), ip) &&
                       (!tu_get(ev, "phoneNumber") || str_is(tu_str(ev, "phoneNumber"), "+*******3434")),
                   "signInSucceeded: %s", tu_dump(ev));
            json_decref(ev);
        }
        json_decref(r);
        json_t *ev = log_last(&l, "signInFailed");
        CHECKF(ev && str_is(tu_str(ev, "code"), "invalidVerificationCode") &&
                   str_is(tu_str(ev, "clientIp"), ip),
               "signInFailed: %s", tu_dump(ev));
        json_decref(ev);
    }
    /* 2nd to 5th: each waits for its SMS, so no undelivered message is given up by a newer one */
    int fifth = 0;
    for (int i = 2; i <= 5; i++) {
        if ((fifth = start(e, &s, phone, vid, code))) {
            json_array_append_new(secrets, json_string(code));
            json_array_append_new(secrets, json_string(vid));
        }
    }
    CHECKF(log_count(&l, "limitTripped") == 0, "a limit tripped within the first 5 sends");
    /* the 6th within the hour trips smsPerNumberPerHour */
    json_t *v = verify(e, phone, NULL, &st);
    EXPECT_LIMIT(v, st, PHONEAUTH_ERR_TOO_MANY_REQUESTS, "tooManyRequests", "smsPerNumberPerHour",
                 "+*******3434");
    json_decref(v);
    int sent = sms_settle(&s, 5);
    CHECKF(sent == 5, "5 SMS expected, the capture got %d", sent);
    json_t *ev = log_last(&l, "limitTripped");
    CHECKF(ev && str_is(tu_str(ev, "limit"), "smsPerNumberPerHour") &&
               str_is(tu_str(ev, "scope"), "+*******3434") &&
               tu_int(ev, "retryAfterSeconds", -1) >= 1,
           "limitTripped: %s", tu_dump(ev));
    json_decref(ev);
    /* the refused send wrote nothing: the 5th verification was not replaced */
    if (fifth) {
        json_t *r = sign_in(e, vid, code, NULL, &st);
        EXPECT_OK(r, st);
        json_decref(r);
    }

    /* codeSent, one per SMS, from the delivery thread once the sender returned */
    int n = log_wait(&l, "codeSent", 5, tu_timeout_ms(5000));
    CHECKF(n == 5, "codeSent events: %d, want 5", n);

    /* every event: well formed, with an RFC 3339 time */
    pthread_mutex_lock(&l.mu);
    CHECKF(l.bad == 0, "%d events were not objects with event and time", l.bad);
    size_t i;
    json_array_foreach(l.events, i, ev) {
        CHECKF(is_rfc3339(tu_str(ev, "time")), "time: %s", tu_dump(ev));
        if (str_is(tu_str(ev, "event"), "codeSent"))
            CHECKF(str_is(tu_str(ev, "phoneNumber"), "+*******3434") &&
                       json_is_string(tu_get(ev, "languageCode")) && tu_int(ev, "attempt", -1) == 1 &&
                       tu_bool(ev, "_onCaller") == 0,
                   "codeSent: %s", tu_dump(ev));
    }
    pthread_mutex_unlock(&l.mu);

    /* removing the sink stops events: a send, a delivery, a failure and a trip, none logged */
    CHECK(phoneauth_set_log_sink(e, NULL, NULL) == PHONEAUTH_OK);
    int before = log_total(&l);
    if (start(e, &s, "+447400123456", vid, code)) {
        wrong_code(code, bad);
        json_t *r = sign_in(e, vid, bad, NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
        json_decref(r);
    }
    v = verify(e, phone, NULL, &st);
    EXPECT_ERR(v, st, PHONEAUTH_ERR_TOO_MANY_REQUESTS, "tooManyRequests");
    json_decref(v);
    tu_sleep_ms(tu_timeout_ms(300)); /* time for a late codeSent */
    CHECKF(log_total(&l) == before, "%d events after the sink was removed", log_total(&l) - before);

    /* no code, verification ID, token or full number in any event */
    json_t *sec;
    json_array_foreach(secrets, i, sec) {
        const char *x = json_string_value(sec);
        CHECKF(x && !log_contains(&l, x), "an event contains the secret %s", x ? x : "(missing)");
    }
    CHECK(!log_contains(&l, phone));
    CHECK(!log_contains(&l, phone + 2)); /* the national number */
    json_decref(secrets);
out:
    phoneauth_close(e);
    log_destroy(&l); /* only after close: the sink's ctx must live that long */
    tu_sms_destroy(&s);
}

/* ---- project, region and IP limits ----------------------------------------------------------- */

/* Sends to each number in turn; the first `allowed` must succeed. Returns the refused result. */
static json_t *send_all(phoneauth_engine *e, const char *const *phones, int count, int allowed,
                        const char *ip, int *st) {
    json_t *last = NULL;
    for (int i = 0; i < count; i++) {
        json_decref(last);
        last = verify(e, phones[i], ip, st);
        if (i < allowed) CHECKF(*st == PHONEAUTH_OK, "send %d of %d (%s): %s", i + 1, allowed,
                                phones[i], tu_dump(last));
    }
    return last;
}

static void test_quota_exceeded(void) {
    static const char *const phones[] = {"+16505553434", "+447400123456", "+16505553435"};
    tu_sms s;
    tu_sms_init(&s, NULL);
    int st;

    /* smsPerProjectPerDay 2: the third send anywhere is refused */
    phoneauth_engine *e = tu_open(g_dir, "project", "{\"quotas\": {\"smsPerProjectPerDay\": 2}}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        json_t *r = send_all(e, phones, 3, 2, NULL, &st);
        EXPECT_LIMIT(r, st, PHONEAUTH_ERR_QUOTA_EXCEEDED, "quotaExceeded", "smsPerProjectPerDay",
                     "project");
        json_decref(r);
        int sent = sms_settle(&s, 2);
        CHECKF(sent == 2, "project quota: %d SMS, want 2", sent);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);

    /* regionBurstPerHour 2: a third US number is refused, a GB one still goes */
    tu_sms_init(&s, NULL);
    static const char *const us[] = {"+16505553434", "+16505553435", "+16505553436"};
    e = tu_open(g_dir, "burst", "{\"quotas\": {\"regionBurstPerHour\": 2}}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        json_t *r = send_all(e, us, 3, 2, NULL, &st);
        EXPECT_LIMIT(r, st, PHONEAUTH_ERR_QUOTA_EXCEEDED, "quotaExceeded", "regionBurstPerHour", "US");
        json_decref(r);
        r = verify(e, "+447400123456", NULL, &st);
        EXPECT_OK(r, st);
        json_decref(r);
        int sent = sms_settle(&s, 3);
        CHECKF(sent == 3, "region burst: %d SMS, want 3", sent);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);

    /* smsPerRegionPerDay {"US": 1}: the second US number is refused, GB has no limit */
    e = tu_open(g_dir, "regionday", "{\"quotas\": {\"smsPerRegionPerDay\": {\"US\": 1}}}");
    if (e) {
        json_t *r = send_all(e, us, 2, 1, NULL, &st);
        EXPECT_LIMIT(r, st, PHONEAUTH_ERR_QUOTA_EXCEEDED, "quotaExceeded", "smsPerRegionPerDay", "US");
        json_decref(r);
        r = send_all(e, phones + 1, 1, 1, NULL, &st);
        json_decref(r);
    }
    phoneauth_close(e);
}

static void test_ip_limit(void) {
    static const char *const phones[] = {"+16505553434", "+447400123456", "+16505553435"};
    static const char *ip = "203.0.113.7";
    int st;
    phoneauth_engine *e = tu_open(g_dir, "ip", "{\"quotas\": {\"smsPerIpPerHour\": 2}}");
    if (!e) return;
    json_t *r = send_all(e, phones, 3, 2, ip, &st);
    EXPECT_LIMIT(r, st, PHONEAUTH_ERR_TOO_MANY_REQUESTS, "tooManyRequests", "smsPerIpPerHour", ip);
    json_decref(r);
    /* the limit is the IP's, not the number's: another IP, or none, still sends */
    r = verify(e, phones[2], "203.0.113.8", &st);
    EXPECT_OK(r, st);
    json_decref(r);
    r = verify(e, "+16505553436", NULL, &st);
    EXPECT_OK(r, st);
    json_decref(r);
    r = verify(e, "+16505553437", "2001:db8::1", &st);
    EXPECT_OK(r, st);
    json_decref(r);
    r = verify(e, "+16505553437", "bogus", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_ARGUMENT, "invalidArgument");
    CHECKF(strstr(tu_errmsg(r), "clientIp") || strstr(tu_dump(tu_get(r, "error.details")), "clientIp"),
           "the error should name clientIp: %s", tu_dump(r));
    json_decref(r);
    phoneauth_close(e);

    /* a verification reused inside resendAfterSeconds counts nothing: 3 calls for one number and
     * 1 for another fit in a limit of 2 */
    e = tu_open(g_dir, "ipreuse", "{\"resendAfterSeconds\": 60, \"quotas\": {\"smsPerIpPerHour\": 2}}");
    if (!e) return;
    static const char *const reuse[] = {"+16505553434", "+16505553434", "+16505553434", "+447400123456",
                                        "+16505553435"};
    r = send_all(e, reuse, 5, 4, ip, &st);
    EXPECT_LIMIT(r, st, PHONEAUTH_ERR_TOO_MANY_REQUESTS, "tooManyRequests", "smsPerIpPerHour", ip);
    json_decref(r);
    phoneauth_close(e);
}

/* wrongCodesPerIpPer5Minutes 2: the 3rd code check from that IP is refused before the code is
 * compared (even the right one, which is not used up), while another IP still gets through. */
static void test_wrong_codes_per_ip(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "ipfail", "{\"quotas\": {\"wrongCodesPerIpPer5Minutes\": 2}}");
    char vid[512], code[16], bad[16];
    int st;
    if (e && CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK) &&
        start(e, &s, "+16505553434", vid, code)) {
        wrong_code(code, bad);
        for (int i = 0; i < 2; i++) {
            json_t *r = sign_in(e, vid, bad, "203.0.113.9", &st);
            EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "invalidVerificationCode");
            json_decref(r);
        }
        json_t *r = sign_in(e, vid, code, "203.0.113.9", &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_TOO_MANY_REQUESTS, "tooManyRequests");
        CHECKF(str_is(tu_str(r, "error.details.reason"), "rateLimit") &&
                   str_is(tu_str(r, "error.details.limit"), "wrongCodesPerIpPer5Minutes") &&
                   tu_int(r, "error.details.retryAfterSeconds", -1) >= 1,
               "%s", tu_dump(r));
        json_decref(r);
        r = sign_in(e, vid, code, "203.0.113.10", &st);
        EXPECT_OK(r, st);
        json_decref(r);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);
}

/* ---- configuration errors -------------------------------------------------------------------- */

/* phoneauth_open must fail with invalidConfiguration; returns the error object (new reference). */
static json_t *open_fails(const char *extra) {
    char db[4096];
    snprintf(db, sizeof db, "%s/badconfig.db", g_dir);
    json_t *config = json_object();
    json_t *x = json_loads(extra, 0, NULL);
    if (!CHECKF(json_is_object(x), "test bug: %s", extra)) {
        json_decref(config);
        return NULL;
    }
    json_object_update(config, x);
    json_decref(x);
    tu_set_database(config, db);
    char *text = json_dumps(config, JSON_COMPACT);
    json_decref(config);
    char *err = NULL;
    phoneauth_engine *e = phoneauth_open(text, &err);
    CHECKF(e == NULL, "phoneauth_open accepted %s", text);
    phoneauth_close(e);
    free(text);
    json_t *res = e ? NULL : tu_parse_out(PHONEAUTH_ERR_INVALID_CONFIGURATION, err);
    if (e) phoneauth_free(err);
    EXPECT_ERR(res, (int)tu_int(res, "error.status", -1), PHONEAUTH_ERR_INVALID_CONFIGURATION,
               "invalidConfiguration");
    return res;
}

/* The error names the unknown region in its message, details.regions (only it) and details.key. */
static void expect_unknown_region(const char *extra, const char *region, const char *key) {
    json_t *res = open_fails(extra);
    json_t *regions = tu_get(res, "error.details.regions");
    CHECKF(json_is_array(regions) && json_array_size(regions) == 1 &&
               str_is(json_string_value(json_array_get(regions, 0)), region),
           "details.regions should be [\"%s\"]: %s", region, tu_dump(res));
    CHECKF(strstr(tu_errmsg(res), region), "message should name %s: %s", region, tu_dump(res));
    CHECKF(str_is(tu_str(res, "error.details.key"), key), "details.key %s: %s", key, tu_dump(res));
    json_decref(res);
}

static void test_bad_configuration(void) {
    expect_unknown_region("{\"smsRegionPolicy\": {\"allowByDefault\":"
                          " {\"disallowedRegions\": [\"DE\", \"XX\"]}}}",
                          "XX", "smsRegionPolicy.allowByDefault.disallowedRegions");
    expect_unknown_region("{\"smsRegionPolicy\": {\"allowlistOnly\":"
                          " {\"allowedRegions\": [\"QQ\", \"GB\"]}}}",
                          "QQ", "smsRegionPolicy.allowlistOnly.allowedRegions");
    expect_unknown_region("{\"quotas\": {\"smsPerRegionPerDay\": {\"US\": 5, \"ZZ\": 5}}}", "ZZ",
                          "quotas.smsPerRegionPerDay");
    json_decref(open_fails("{\"smsRegionPolicy\": {\"allowByDefault\": {\"disallowedRegions\": [\"DE\"]},"
                           " \"allowlistOnly\": {\"allowedRegions\": [\"GB\"]}}}"));
    json_decref(open_fails("{\"phoneNumberTypes\": {\"deny\": [\"PREMIUM_RATE\", \"EXPENSIVE\"]}}"));
    json_decref(open_fails("{\"quotas\": {\"smsPerNumberPerHour\": -1}}"));
    json_decref(open_fails("{\"quotas\": {\"smsPerRegionPerDay\": {\"US\": -1}}}"));
}

/* ---- region and line-type policies ----------------------------------------------------------- */

static void test_region_policy(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    int st;
    phoneauth_engine *e = tu_open(g_dir, "allowlist",
                                  "{\"smsRegionPolicy\": {\"allowlistOnly\": {\"allowedRegions\": [\"GB\"]}},"
                                  " \"testPhoneNumbers\": {\"+16505551234\": \"123456\"}}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
        /* a real US number, and a US test number too (the policy is validation) */
        const char *refused[] = {"+16505553434", "+16505551234"};
        for (int i = 0; i < 2; i++) {
            json_t *r = verify(e, refused[i], NULL, &st);
            EXPECT_ERR(r, st, PHONEAUTH_ERR_OPERATION_NOT_ALLOWED, "operationNotAllowed");
            CHECKF(str_is(tu_str(r, "error.details.reason"), "regionNotAllowed") &&
                       str_is(tu_str(r, "error.details.region"), "US"),
                   "%s: %s", refused[i], tu_dump(r));
            json_decref(r);
        }
        json_t *r = verify(e, "+44 20 7031 3000", NULL, &st);
        if (EXPECT_OK(r, st)) {
            json_t *m = tu_sms_wait(&s, tu_str(r, "verificationId"), tu_timeout_ms(15000));
            CHECKF(str_is(tu_str(m, "to"), "+442070313000"), "GB SMS: %s", tu_dump(m));
            json_decref(m);
        }
        json_decref(r);
        CHECKF(tu_sms_calls(&s) == 1, "%d SMS, want only the GB one", tu_sms_calls(&s));
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);

    e = tu_open(g_dir, "denylist",
                "{\"smsRegionPolicy\": {\"allowByDefault\": {\"disallowedRegions\": [\"GB\"]}}}");
    if (e) {
        json_t *r = verify(e, "+447400123456", NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_OPERATION_NOT_ALLOWED, "operationNotAllowed");
        CHECKF(str_is(tu_str(r, "error.details.region"), "GB"), "%s", tu_dump(r));
        json_decref(r);
        r = verify(e, "+16505553434", NULL, &st);
        EXPECT_OK(r, st);
        json_decref(r);
    }
    phoneauth_close(e);
}

static void test_type_policy(void) {
    /* UK 09xx is premium rate in libphonenumber's metadata */
    static const char *premium = "+44 909 8790000";
    int st;
    phoneauth_engine *e = tu_open(g_dir, "types", NULL);
    if (e) {
        json_t *r = verify(e, premium, NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_PHONE_NUMBER, "invalidPhoneNumber");
        CHECKF(str_is(tu_str(r, "error.details.reason"), "typeNotAllowed") &&
                   str_is(tu_str(r, "error.details.type"), "PREMIUM_RATE"),
               "%s: %s", premium, tu_dump(r));
        json_decref(r);
        r = verify(e, "+447400123456", NULL, &st); /* mobile: allowed */
        EXPECT_OK(r, st);
        json_decref(r);
    }
    phoneauth_close(e);

    /* an explicit list replaces the default: premium allowed, mobile denied */
    e = tu_open(g_dir, "types2", "{\"phoneNumberTypes\": {\"deny\": [\"MOBILE\"]}}");
    if (e) {
        json_t *r = verify(e, premium, NULL, &st);
        EXPECT_OK(r, st);
        json_decref(r);
        r = verify(e, "+447400123456", NULL, &st);
        EXPECT_ERR(r, st, PHONEAUTH_ERR_INVALID_PHONE_NUMBER, "invalidPhoneNumber");
        CHECKF(str_is(tu_str(r, "error.details.type"), "MOBILE"), "%s", tu_dump(r));
        json_decref(r);
    }
    phoneauth_close(e);
}

/* ---- lockout --------------------------------------------------------------------------------- */

static int is_locked(json_t *r, int st) {
    return st == PHONEAUTH_ERR_TOO_MANY_REQUESTS &&
           str_is(tu_str(r, "error.details.reason"), "numberLocked") &&
           tu_int(r, "error.details.retryAfterSeconds", -1) >= 1;
}

static void test_lockout(void) {
    static const char *phone = "+16505553434";
    tu_sms s;
    sink_log l;
    tu_sms_init(&s, NULL);
    log_init(&l);
    phoneauth_engine *e = tu_open(g_dir, "lockout", "{\"quotas\": {\"maxConsecutiveFailures\": 7,"
                                                    " \"smsPerNumberPerHour\": 0}}");
    if (!e) goto out;
    CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
    CHECK(phoneauth_set_log_sink(e, log_sink, &l) == PHONEAUTH_OK);
    char vid[512], code[16], bad[16];
    int st;
    /* wrong codes 1-5 use up the first verification (maxAttempts 5) */
    if (!start(e, &s, phone, vid, code)) goto out;
    wrong_code(code, bad);
    for (int i = 1; i <= 5; i++) {
        json_t *r = sign_in(e, vid, bad, NULL, &st);
        CHECKF(st == PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "wrong code %d: %s", i, tu_dump(r));
        json_decref(r);
    }
    /* 6 and 7 on a second verification: the 7th locks */
    if (!start(e, &s, phone, vid, code)) goto out;
    wrong_code(code, bad);
    json_t *r = sign_in(e, vid, bad, NULL, &st);
    CHECKF(st == PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "wrong code 6: %s", tu_dump(r));
    json_decref(r);
    CHECKF(log_count(&l, "lockout") == 0, "locked before the 7th wrong code");
    r = sign_in(e, vid, bad, "192.0.2.1", &st);
    CHECKF(is_locked(r, st) && tu_int(r, "error.details.retryAfterSeconds", -1) <= 3600,
           "the 7th wrong code locks: %s", tu_dump(r));
    json_decref(r);
    /* while locked even the right code is refused, and no code is sent */
    r = sign_in(e, vid, code, NULL, &st);
    CHECKF(is_locked(r, st), "right code while locked: %s", tu_dump(r));
    json_decref(r);
    int sent = tu_sms_calls(&s);
    r = verify(e, phone, NULL, &st);
    CHECKF(is_locked(r, st), "verifyPhoneNumber while locked: %s", tu_dump(r));
    json_decref(r);
    CHECKF(sms_settle(&s, sent) == sent, "an SMS was sent to a locked number");
    /* another number is not affected */
    r = verify(e, "+16505553435", NULL, &st);
    EXPECT_OK(r, st);
    json_decref(r);

    json_t *ev = log_last(&l, "lockout");
    CHECKF(log_count(&l, "lockout") == 1 && str_is(tu_str(ev, "phoneNumber"), "+*******3434") &&
               is_rfc3339(tu_str(ev, "until")) && str_is(tu_str(ev, "clientIp"), "192.0.2.1"),
           "lockout event: %s", tu_dump(ev));
    CHECKF(json_integer_value(json_object_get(ev, "lockoutSeconds")) == 3600, "lockout length: %s", tu_dump(ev));
    json_decref(ev);
    CHECKF(!log_contains(&l, code) && !log_contains(&l, bad) && !log_contains(&l, phone),
           "an event contains a code or the number");

    /* The admin's remedy: unlockPhoneNumber ends the lockout at once (and says whether there was one). */
    r = tu_call(e, "unlockPhoneNumber", "{\"phoneNumber\": \"+1 650 555 3434\"}", &st);
    EXPECT_OK(r, st);
    CHECKF(json_is_true(json_object_get(r, "unlocked")), "unlockPhoneNumber: %s", tu_dump(r));
    json_decref(r);
    r = tu_call(e, "unlockPhoneNumber", "{\"phoneNumber\": \"+16505553434\"}", &st);
    CHECKF(st == PHONEAUTH_OK && json_is_false(json_object_get(r, "unlocked")), "second unlock: %s", tu_dump(r));
    json_decref(r);
    r = verify(e, phone, "192.0.2.1", &st);
    EXPECT_OK(r, st);
    json_decref(r);
    r = tu_call(e, "unlockPhoneNumber", "{}", &st);
    EXPECT_ERR(r, st, PHONEAUTH_ERR_MISSING_PHONE_NUMBER, "missingPhoneNumber");
    json_decref(r);
out:
    phoneauth_close(e);
    log_destroy(&l);
    tu_sms_destroy(&s);
}

/* A right code resets the count: with 3 allowed, 2 wrong + right + 2 wrong + right never locks. */
static void test_lockout_reset(void) {
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, "reset", "{\"quotas\": {\"maxConsecutiveFailures\": 3,"
                                                  " \"smsPerNumberPerHour\": 0}}");
    if (e) CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
    for (int round = 0; e && round < 2; round++) {
        char vid[512], code[16], bad[16];
        int st;
        if (!start(e, &s, "+16505553434", vid, code)) break;
        wrong_code(code, bad);
        for (int i = 0; i < 2; i++) {
            json_t *r = sign_in(e, vid, bad, NULL, &st);
            CHECKF(st == PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, "round %d: %s", round, tu_dump(r));
            json_decref(r);
        }
        json_t *r = sign_in(e, vid, code, NULL, &st);
        EXPECT_OK(r, st);
        json_decref(r);
    }
    phoneauth_close(e);
    tu_sms_destroy(&s);
}

/* ---- test numbers ---------------------------------------------------------------------------- */

/* 20 sends and 20 wrong codes (one per verification); quotas may lower the lockout threshold,
 * since the default (100) would not be reached anyway. */
static void test_test_numbers_exempt(const char *name, const char *quotas) {
    static const char *phone = "+16505551234";
    char config[512];
    snprintf(config, sizeof config, "{\"testPhoneNumbers\": {\"+16505551234\": \"123456\"}%s%s}",
             quotas ? ", \"quotas\": " : "", quotas ? quotas : "");
    sink_log l;
    log_init(&l);
    tu_sms s;
    tu_sms_init(&s, NULL);
    phoneauth_engine *e = tu_open(g_dir, name, config);
    if (!e) goto out;
    CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &s) == PHONEAUTH_OK);
    CHECK(phoneauth_set_log_sink(e, log_sink, &l) == PHONEAUTH_OK);
    int sends = 0, wrongs = 0, st;
    for (int i = 0; i < 20; i++) {
        json_t *v = verify(e, phone, NULL, &st);
        const char *vid = tu_str(v, "verificationId");
        if (st == PHONEAUTH_OK && vid) {
            sends++;
            json_t *r = sign_in(e, vid, "123457", "192.0.2.9", &st);
            if (st == PHONEAUTH_ERR_INVALID_VERIFICATION_CODE) wrongs++;
            else CHECKF(0, "wrong code %d to a test number: %s", i + 1, tu_dump(r));
            json_decref(r);
        } else {
            CHECKF(0, "send %d to a test number: %s", i + 1, tu_dump(v));
        }
        json_decref(v);
    }
    CHECKF(sends == 20 && wrongs == 20, "%d sends, %d wrong codes; want 20 each", sends, wrongs);
    json_t *v = verify(e, phone, NULL, &st);
    const char *vid = tu_str(v, "verificationId");
    json_t *r = sign_in(e, vid ? vid : "", "123456", NULL, &st);
    CHECKF(st == PHONEAUTH_OK, "the right code after all that: %s", tu_dump(r));
    json_decref(r);
    json_decref(v);
    CHECK(log_count(&l, "limitTripped") == 0 && log_count(&l, "lockout") == 0);
    CHECK(tu_sms_calls(&s) == 0);
out:
    phoneauth_close(e);
    log_destroy(&l);
    tu_sms_destroy(&s);
}

/* ---- the per-number limit under concurrency -------------------------------------------------- */

#define HAMMER_CALLS 8

static pthread_barrier_t g_barrier;

typedef struct {
    phoneauth_engine *e;
    int ok, refused;
} hammer;

static void *hammer_main(void *arg) {
    hammer *h = arg;
    pthread_barrier_wait(&g_barrier);
    for (int i = 0; i < HAMMER_CALLS; i++) {
        int st;
        json_t *r = tu_call(h->e, "verifyPhoneNumber", "{\"phoneNumber\": \"+16505553434\"}", &st);
        if (st == PHONEAUTH_OK) h->ok++;
        else if (st == PHONEAUTH_ERR_TOO_MANY_REQUESTS &&
                 str_is(tu_str(r, "error.details.limit"), "smsPerNumberPerHour")) h->refused++;
        else CHECKF(0, "unexpected result: %s", tu_dump(r));
        json_decref(r);
    }
    return NULL;
}

static void test_threads(void) {
    phoneauth_engine *e = tu_open(g_dir, "hammer", "{\"quotas\": {\"smsPerNumberPerHour\": 5}}");
    if (!e) return;
    hammer h[2] = {{e, 0, 0}, {e, 0, 0}};
    pthread_t t[2];
    pthread_barrier_init(&g_barrier, NULL, 2);
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, hammer_main, &h[i]) == 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&g_barrier);
    CHECKF(h[0].ok + h[1].ok == 5, "%d + %d sends succeeded, want 5 in all", h[0].ok, h[1].ok);
    CHECKF(h[0].refused + h[1].refused == 2 * HAMMER_CALLS - 5, "%d + %d refused", h[0].refused,
           h[1].refused);
    phoneauth_close(e);
}

/* ---- the per-number limit across two engines on one database --------------------------------- */

static void test_two_engines(void) {
    static const char *phone = "+16505553434";
    tu_sms s; /* shared: either engine's delivery thread may deliver either's message */
    tu_sms_init(&s, NULL);
    phoneauth_engine *a = tu_open(g_dir, "shared", NULL);
    phoneauth_engine *b = tu_open(g_dir, "shared", NULL);
    if (a && b) {
        CHECK(phoneauth_set_sms_sender(a, tu_sms_sender, &s) == PHONEAUTH_OK);
        CHECK(phoneauth_set_sms_sender(b, tu_sms_sender, &s) == PHONEAUTH_OK);
        char vid[512], code[16];
        for (int i = 0; i < 5; i++) start(i < 3 ? a : b, &s, phone, vid, code);
        int st;
        json_t *r = verify(a, phone, NULL, &st);
        EXPECT_LIMIT(r, st, PHONEAUTH_ERR_TOO_MANY_REQUESTS, "tooManyRequests", "smsPerNumberPerHour",
                     "+*******3434");
        json_decref(r);
        r = verify(b, phone, NULL, &st);
        EXPECT_LIMIT(r, st, PHONEAUTH_ERR_TOO_MANY_REQUESTS, "tooManyRequests", "smsPerNumberPerHour",
                     "+*******3434");
        json_decref(r);
        int sent = sms_settle(&s, 5);
        CHECKF(sent == 5, "two engines: %d SMS, want 5", sent);
    }
    phoneauth_close(a);
    phoneauth_close(b);
    tu_sms_destroy(&s);
}

int main(void) {
    g_dir = tu_tmpdir();
    test_sink_null_engine();
    test_sink_and_number_limit();
    test_quota_exceeded();
    test_ip_limit();
    test_wrong_codes_per_ip();
    test_bad_configuration();
    test_region_policy();
    test_type_policy();
    test_lockout();
    test_lockout_reset();
    test_test_numbers_exempt("exempt", NULL);
    test_test_numbers_exempt("exempt3", "{\"maxConsecutiveFailures\": 3}");
    test_threads();
    test_two_engines();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
