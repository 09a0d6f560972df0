/* test_events.c: durable events from C (phoneauth_set_event_handler). A first sign-in gives
 * userCreated then userSignedIn (distinct ids, an RFC 3339 timestamp, the user with its number
 * masked unless events.includePhoneNumbers); updateUser gives userUpdated naming what changed,
 * deleteUser userDeleted; getStatus counts what is not delivered yet. A handler that refuses an
 * event is offered the same event again, and the user's next event only after it. Events recorded
 * while no handler is installed (even by an engine closed since) wait in the store and come once
 * one is; a handler removed with NULL is offered nothing more, and the events wait for the next.
 * Bad arguments: a NULL engine, an engine opened without "events".
 *
 * Nothing here waits for a time to pass to put events in order: the handler records what it is
 * given under a mutex, and the test waits on its condition variable (with a generous timeout). */
#include "testutil.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ALICE "+16505551230"
#define BOB "+16505551231"
#define CAROL "+16505551232"
#define DAN "+16505551233"
#define CODE "123456"
#define NUMBERS                                                                                \
    "\"testPhoneNumbers\": {\"" ALICE "\": \"" CODE "\", \"" BOB "\": \"" CODE "\", \"" CAROL \
    "\": \"" CODE "\", \"" DAN "\": \"" CODE "\"}"
/* Events recorded, retried 10 ms after a refusal (doubling). */
#define EVENTS_CONFIG "{" NUMBERS ", \"events\": {\"retryMs\": 10}}"

static char *g_dir;

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* ---- the handler: records every event it is offered ---------------------------------------- */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;  /* CLOCK_MONOTONIC */
    json_t *offered;    /* every call, in order: {"event": <parsed>, "raw": "<text>", "took": bool} */
    json_t *taken;      /* the events it took, first time each id was taken, in order (parsed) */
    int repeats;        /* events taken again (an id already taken): allowed, at least once */
    int bad;            /* calls whose event was NULL or not a JSON object */
    int inflight, overlapped;
    int refuse;         /* refuse (return 1) this many further calls */
    int hold;           /* while set, a call waits in the handler until it is cleared */
    int held;           /* calls that have waited (or are waiting) in the handler */
} capture;

static void capture_init(capture *c) {
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    tu_init_monotonic_cond(&c->cv);
    c->offered = json_array();
    c->taken = json_array();
}

static void capture_destroy(capture *c) {
    json_decref(c->offered);
    json_decref(c->taken);
    pthread_cond_destroy(&c->cv);
    pthread_mutex_destroy(&c->mu);
}

static int already_taken(capture *c, const char *id) {
    size_t i;
    json_t *e;
    json_array_foreach(c->taken, i, e) if (same(tu_str(e, "id"), id)) return 1;
    return 0;
}

static int handler(void *ctx, const char *event_json) {
    capture *c = ctx;
    json_t *event = event_json ? json_loads(event_json, 0, NULL) : NULL;
    pthread_mutex_lock(&c->mu);
    if (c->inflight++) c->overlapped = 1;
    int refused = 0;
    if (!json_is_object(event)) {
        c->bad++;
        refused = 1;
    } else {
        if (c->refuse > 0) {
            c->refuse--;
            refused = 1;
        }
        if (c->hold) {
            c->held++;
            pthread_cond_broadcast(&c->cv);
            struct timespec deadline;
            tu_deadline_after(&deadline, tu_timeout_ms(30000));
            while (c->hold && pthread_cond_timedwait(&c->cv, &c->mu, &deadline) == 0) {
            }
        }
        json_array_append_new(c->offered, json_pack("{s:O, s:s, s:b}", "event", event, "raw", event_json,
                                                    "took", !refused));
        if (!refused) {
            if (already_taken(c, tu_str(event, "id")))
                c->repeats++;
            else
                json_array_append(c->taken, event);
        }
    }
    c->inflight--;
    /* Released under the lock: the test's thread takes and drops references to the same object
     * (jansson's reference counts are not atomic). */
    json_decref(event);
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return refused;
}

/* Waits until the handler has taken n distinct events (or timeout_ms pass); returns how many. */
static int wait_taken(capture *c, int n, int timeout_ms) {
    struct timespec deadline;
    tu_deadline_after(&deadline, timeout_ms);
    pthread_mutex_lock(&c->mu);
    while ((int)json_array_size(c->taken) < n && pthread_cond_timedwait(&c->cv, &c->mu, &deadline) == 0) {
    }
    int got = (int)json_array_size(c->taken);
    pthread_mutex_unlock(&c->mu);
    return got;
}

/* Waits until the handler has been called n times (or timeout_ms pass); returns how many times. */
static int wait_offered(capture *c, int n, int timeout_ms) {
    struct timespec deadline;
    tu_deadline_after(&deadline, timeout_ms);
    pthread_mutex_lock(&c->mu);
    while ((int)json_array_size(c->offered) < n && pthread_cond_timedwait(&c->cv, &c->mu, &deadline) == 0) {
    }
    int got = (int)json_array_size(c->offered);
    pthread_mutex_unlock(&c->mu);
    return got;
}

/* Waits until a call is waiting in the handler (hold set); returns whether one is. */
static int wait_held(capture *c, int n, int timeout_ms) {
    struct timespec deadline;
    tu_deadline_after(&deadline, timeout_ms);
    pthread_mutex_lock(&c->mu);
    while (c->held < n && pthread_cond_timedwait(&c->cv, &c->mu, &deadline) == 0) {
    }
    int ok = c->held >= n;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

static void set_hold(capture *c, int hold) {
    pthread_mutex_lock(&c->mu);
    c->hold = hold;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

/* The i-th event taken (new reference), or NULL. */
static json_t *taken_at(capture *c, int i) {
    pthread_mutex_lock(&c->mu);
    json_t *e = json_incref(json_array_get(c->taken, (size_t)i));
    pthread_mutex_unlock(&c->mu);
    return e;
}

/* A copy of every call so far (new reference). */
static json_t *offered_copy(capture *c) {
    pthread_mutex_lock(&c->mu);
    json_t *copy = json_deep_copy(c->offered);
    pthread_mutex_unlock(&c->mu);
    return copy;
}

static int offered_count(capture *c) {
    pthread_mutex_lock(&c->mu);
    int n = (int)json_array_size(c->offered);
    pthread_mutex_unlock(&c->mu);
    return n;
}

/* tu_dump of what the handler took / was offered, read under its mutex. */
static const char *dump_taken(capture *c) {
    pthread_mutex_lock(&c->mu);
    const char *text = tu_dump(c->taken);
    pthread_mutex_unlock(&c->mu);
    return text;
}

static const char *dump_offered(capture *c) {
    pthread_mutex_lock(&c->mu);
    const char *text = tu_dump(c->offered);
    pthread_mutex_unlock(&c->mu);
    return text;
}

/* The calls' sanity: every event a JSON object, never two calls at once. */
static void check_calls(capture *c) {
    pthread_mutex_lock(&c->mu);
    int bad = c->bad, overlapped = c->overlapped;
    pthread_mutex_unlock(&c->mu);
    CHECKF(bad == 0, "%d events were not JSON objects", bad);
    CHECKF(!overlapped, "the handler was called on two threads at once");
}

/* ---- what an event must look like ------------------------------------------------------------ */

/* "2026-11-21T09:30:00Z", with an optional fraction and a Z or +hh:mm / -hh:mm offset. */
static int is_rfc3339(const char *s) {
    if (!s) return 0;
    const char *shape = "dddd-dd-ddTdd:dd:dd";
    for (size_t i = 0; shape[i]; i++, s++) {
        if (shape[i] == 'd' ? !isdigit((unsigned char)*s) : *s != shape[i]) return 0;
    }
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s)) return 0;
        while (isdigit((unsigned char)*s)) s++;
    }
    if (*s == 'Z') return s[1] == 0;
    if (*s != '+' && *s != '-') return 0;
    return isdigit((unsigned char)s[1]) && isdigit((unsigned char)s[2]) && s[3] == ':' &&
           isdigit((unsigned char)s[4]) && isdigit((unsigned char)s[5]) && s[6] == 0;
}

/* An event of `type` about the user uid, whose number shows as `phone` ("" to skip). */
static int check_event(json_t *e, const char *type, const char *uid, const char *phone) {
    if (!CHECKF(e != NULL, "no %s event", type)) return 0;
    int ok = CHECKF(same(tu_str(e, "type"), type), "expected %s: %s", type, tu_dump(e));
    const char *id = tu_str(e, "id");
    ok &= CHECKF(id && strncmp(id, "evt_", 4) == 0 && strlen(id) > 4, "id: %s", tu_dump(e));
    ok &= CHECKF(is_rfc3339(tu_str(e, "timestamp")), "timestamp: %s", tu_dump(e));
    ok &= CHECKF(json_is_object(tu_get(e, "data.user")), "data.user: %s", tu_dump(e));
    ok &= CHECKF(same(tu_str(e, "data.user.uid"), uid), "uid %s: %s", uid, tu_dump(e));
    if (*phone) ok &= CHECKF(same(tu_str(e, "data.user.phoneNumber"), phone), "number %s: %s", phone, tu_dump(e));
    ok &= CHECKF(tu_bool(e, "data.user.disabled") == 0, "disabled: %s", tu_dump(e));
    ok &= CHECKF(is_rfc3339(tu_str(e, "data.user.creationTime")), "creationTime: %s", tu_dump(e));
    return ok;
}

/* The national digits of a number, which must not appear in an event that masks it. */
static int shows_number(json_t *e, const char *phone) {
    char *text = json_dumps(e, JSON_COMPACT);
    int shown = text && strstr(text, phone + 2) != NULL;
    free(text);
    return shown;
}

/* ---- engine calls ------------------------------------------------------------------------------ */

/* verifyPhoneNumber + credential + signInWithCredential for one of the test numbers; returns the
 * malloc'ed uid of the signed-in user, or NULL after recording the failure. */
static char *sign_in(phoneauth_engine *e, const char *phone) {
    int st;
    json_t *v = tu_callj(e, "verifyPhoneNumber", json_pack("{s:s}", "phoneNumber", phone), &st);
    if (!EXPECT_OK(v, st)) {
        json_decref(v);
        return NULL;
    }
    json_t *c = tu_callj(e, "credential",
                         json_pack("{s:s?, s:s}", "verificationId", tu_str(v, "verificationId"),
                                   "verificationCode", CODE), &st);
    json_decref(v);
    if (!EXPECT_OK(c, st)) {
        json_decref(c);
        return NULL;
    }
    json_t *r = tu_callj(e, "signInWithCredential", json_pack("{s:O?}", "credential", tu_get(c, "credential")), &st);
    json_decref(c);
    char *uid = NULL;
    if (EXPECT_OK(r, st)) {
        CHECKF(tu_bool(r, "additionalUserInfo.isNewUser") == 1, "%s", tu_dump(r));
        const char *u = tu_str(r, "user.uid");
        if (CHECKF(u != NULL, "%s", tu_dump(r))) uid = strdup(u);
    }
    json_decref(r);
    return uid;
}

static void update_name(phoneauth_engine *e, const char *uid, const char *name) {
    int st;
    json_t *r = tu_callj(e, "updateUser", json_pack("{s:s, s:s}", "uid", uid, "displayName", name), &st);
    EXPECT_OK(r, st);
    json_decref(r);
}

/* getStatus's events object (new reference), or NULL. Counts a check only when it fails, so that
 * polling does not change the number of checks passed. */
static json_t *events_status(phoneauth_engine *e) {
    int st;
    json_t *r = tu_call(e, "getStatus", "{}", &st);
    json_t *events = NULL;
    if (st != PHONEAUTH_OK || !r) {
        EXPECT_OK(r, st);
    } else {
        events = json_incref(tu_get(r, "events"));
        if (!json_is_object(events)) CHECKF(0, "getStatus has no events object: %s", tu_dump(r));
    }
    json_decref(r);
    return events;
}

static long long pending(phoneauth_engine *e) {
    json_t *ev = events_status(e);
    long long n = tu_int(ev, "pending", -1);
    json_decref(ev);
    return n;
}

/* Polls getStatus until events.pending is `want` (a delivered event leaves the store just after
 * the handler returns: there is nothing to wait on for that); returns the last count seen. */
static long long wait_pending(phoneauth_engine *e, long long want, int timeout_ms) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        long long n = pending(e);
        if (n == want) return n;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000L + (now.tv_nsec - start.tv_nsec) / 1000000L;
        if (elapsed > timeout_ms) return n;
        tu_sleep_ms(10);
    }
}

/* ---- tests ------------------------------------------------------------------------------------ */

/* A first sign-in, a change of name and a deletion: four events, in order, each once. */
static void test_sign_in_update_delete(void) {
    capture c;
    capture_init(&c);
    phoneauth_engine *e = tu_open(g_dir, "lifecycle", EVENTS_CONFIG);
    if (!e) goto out;
    CHECK(phoneauth_set_event_handler(e, handler, &c) == PHONEAUTH_OK);

    char *uid = sign_in(e, ALICE);
    if (!uid) goto close;
    CHECKF(wait_taken(&c, 2, tu_timeout_ms(10000)) == 2, "events: %s", dump_taken(&c));
    json_t *created = taken_at(&c, 0), *signed_in = taken_at(&c, 1);
    check_event(created, "userCreated", uid, "+*******1230");
    check_event(signed_in, "userSignedIn", uid, "+*******1230");
    if (created && signed_in) {
        CHECKF(!same(tu_str(created, "id"), tu_str(signed_in, "id")), "one id for two events: %s",
               tu_str(created, "id"));
        CHECKF(!shows_number(created, ALICE) && !shows_number(signed_in, ALICE), "a whole number: %s",
               dump_taken(&c));
        CHECKF(is_rfc3339(tu_str(signed_in, "data.user.lastSignInTime")), "%s", tu_dump(signed_in));
    }
    json_decref(created);
    json_decref(signed_in);

    update_name(e, uid, "Alice");
    CHECKF(wait_taken(&c, 3, tu_timeout_ms(10000)) == 3, "events: %s", dump_taken(&c));
    json_t *updated = taken_at(&c, 2);
    if (check_event(updated, "userUpdated", uid, "+*******1230")) {
        json_t *want = json_pack("[s]", "displayName");
        CHECKF(json_equal(tu_get(updated, "data.changed"), want), "changed: %s", tu_dump(updated));
        json_decref(want);
        CHECKF(same(tu_str(updated, "data.user.displayName"), "Alice"), "%s", tu_dump(updated));
    }
    json_decref(updated);

    int st;
    json_t *r = tu_callj(e, "deleteUser", json_pack("{s:s}", "uid", uid), &st);
    EXPECT_OK(r, st);
    json_decref(r);
    CHECKF(wait_taken(&c, 4, tu_timeout_ms(10000)) == 4, "events: %s", dump_taken(&c));
    json_t *deleted = taken_at(&c, 3);
    check_event(deleted, "userDeleted", uid, "+*******1230");
    json_decref(deleted);

    /* Four ids, all different; nothing else came. */
    pthread_mutex_lock(&c.mu);
    for (size_t i = 0; i < json_array_size(c.taken); i++)
        for (size_t j = i + 1; j < json_array_size(c.taken); j++)
            CHECKF(!same(tu_str(json_array_get(c.taken, i), "id"), tu_str(json_array_get(c.taken, j), "id")),
                   "events %zu and %zu share an id: %s", i, j, tu_dump(c.taken));
    CHECKF(json_array_size(c.taken) == 4, "%s", tu_dump(c.taken));
    pthread_mutex_unlock(&c.mu);
    check_calls(&c);

    /* Delivered events leave the store. */
    CHECK(wait_pending(e, 0, tu_timeout_ms(10000)) == 0);
    json_t *ev = events_status(e);
    CHECKF(json_is_null(tu_get(ev, "oldestPendingAt")), "%s", tu_dump(ev));
    json_decref(ev);
    free(uid);
close:
    phoneauth_close(e);
out:
    capture_destroy(&c);
}

/* events.includePhoneNumbers: the number in full. */
static void test_include_phone_numbers(void) {
    capture c;
    capture_init(&c);
    phoneauth_engine *e = tu_open(g_dir, "fullnumbers", "{" NUMBERS ", \"events\": {\"includePhoneNumbers\": true}}");
    if (!e) goto out;
    CHECK(phoneauth_set_event_handler(e, handler, &c) == PHONEAUTH_OK);
    char *uid = sign_in(e, BOB);
    if (uid) {
        CHECKF(wait_taken(&c, 2, tu_timeout_ms(10000)) == 2, "events: %s", dump_taken(&c));
        json_t *created = taken_at(&c, 0), *signed_in = taken_at(&c, 1);
        check_event(created, "userCreated", uid, BOB);
        check_event(signed_in, "userSignedIn", uid, BOB);
        json_decref(created);
        json_decref(signed_in);
    }
    free(uid);
    check_calls(&c);
    phoneauth_close(e);
out:
    capture_destroy(&c);
}

/* A refused event is offered again (the same id, the same JSON), and the user's next event is
 * not offered before the refused one was taken. */
static void test_refused_event_comes_again_first(void) {
    capture c;
    capture_init(&c);
    c.refuse = 2;
    phoneauth_engine *e = tu_open(g_dir, "refused", EVENTS_CONFIG);
    if (!e) goto out;
    CHECK(phoneauth_set_event_handler(e, handler, &c) == PHONEAUTH_OK);
    char *uid = sign_in(e, CAROL);
    if (!uid) goto close;
    CHECKF(wait_taken(&c, 2, tu_timeout_ms(10000)) == 2, "events: %s", dump_taken(&c));
    json_t *calls = offered_copy(&c);
    /* userCreated refused twice, then taken; then userSignedIn, taken. */
    if (CHECKF(json_array_size(calls) == 4, "calls: %s", tu_dump(calls))) {
        json_t *first = tu_get(json_array_get(calls, 0), "event");
        check_event(first, "userCreated", uid, "+*******1232");
        const char *id = tu_str(first, "id");
        const char *raw = tu_str(json_array_get(calls, 0), "raw");
        for (size_t i = 0; i < 3; i++) {
            json_t *call = json_array_get(calls, i);
            CHECKF(same(tu_str(call, "event.type"), "userCreated"), "call %zu: %s", i, tu_dump(calls));
            CHECKF(same(tu_str(call, "event.id"), id), "call %zu has another id: %s", i, tu_dump(calls));
            CHECKF(same(tu_str(call, "raw"), raw), "call %zu has other JSON: %s", i, tu_dump(calls));
            CHECKF(tu_bool(call, "took") == (i == 2), "call %zu: %s", i, tu_dump(calls));
        }
        json_t *last = tu_get(json_array_get(calls, 3), "event");
        check_event(last, "userSignedIn", uid, "+*******1232");
        CHECKF(!same(tu_str(last, "id"), id), "%s", tu_dump(calls));
    }
    json_decref(calls);
    check_calls(&c);
    CHECK(wait_pending(e, 0, tu_timeout_ms(10000)) == 0);
    free(uid);
close:
    phoneauth_close(e);
out:
    capture_destroy(&c);
}

/* Events recorded with no handler installed wait in the store (also across a close) and come
 * once one is installed. A handler removed (NULL) while one of its calls is running is offered
 * nothing after that call; what comes meanwhile waits for the next handler. */
static void test_events_wait_for_a_handler(void) {
    capture c, d;
    capture_init(&c);
    capture_init(&d);
    char *uid = NULL;
    phoneauth_engine *e = tu_open(g_dir, "waiting", EVENTS_CONFIG);
    if (!e) goto out;
    uid = sign_in(e, DAN);
    if (!uid) goto close;
    json_t *ev = events_status(e);
    CHECKF(tu_int(ev, "pending", -1) == 2, "two events recorded, none delivered: %s", tu_dump(ev));
    CHECKF(is_rfc3339(tu_str(ev, "oldestPendingAt")), "%s", tu_dump(ev));
    json_decref(ev);
    phoneauth_close(e);

    /* Another engine on the store finds them. */
    e = tu_open(g_dir, "waiting", EVENTS_CONFIG);
    if (!e) goto out;
    CHECKF(pending(e) == 2, "the events outlived the engine that recorded them");
    CHECK(offered_count(&c) == 0);
    CHECK(phoneauth_set_event_handler(e, handler, &c) == PHONEAUTH_OK);
    CHECKF(wait_taken(&c, 2, tu_timeout_ms(10000)) == 2, "events: %s", dump_taken(&c));
    json_t *created = taken_at(&c, 0), *signed_in = taken_at(&c, 1);
    check_event(created, "userCreated", uid, "+*******1233");
    check_event(signed_in, "userSignedIn", uid, "+*******1233");
    json_decref(created);
    json_decref(signed_in);
    int before = offered_count(&c);

    /* The handler is removed while it holds the next event; a change made then is not offered to it. */
    set_hold(&c, 1);
    update_name(e, uid, "first");
    if (!CHECKF(wait_held(&c, 1, tu_timeout_ms(10000)), "the handler was not offered userUpdated")) {
        set_hold(&c, 0);
        goto close;
    }
    CHECK(phoneauth_set_event_handler(e, NULL, NULL) == PHONEAUTH_OK);
    update_name(e, uid, "second");
    set_hold(&c, 0);
    CHECKF(wait_taken(&c, 3, tu_timeout_ms(10000)) == 3, "events: %s", dump_taken(&c));
    json_t *first = taken_at(&c, 2);
    if (check_event(first, "userUpdated", uid, "+*******1233"))
        CHECKF(same(tu_str(first, "data.user.displayName"), "first"), "%s", tu_dump(first));
    json_decref(first);
    /* Nothing more for the removed handler: waiting for one more call must time out (when the
     * engine behaves, this wait passes whatever the timing). */
    CHECKF(wait_offered(&c, before + 2, tu_timeout_ms(500)) == before + 1,
           "the removed handler was called again: %s", dump_offered(&c));
    CHECKF(wait_pending(e, 1, tu_timeout_ms(10000)) == 1, "the second change waits in the store");

    CHECK(phoneauth_set_event_handler(e, handler, &d) == PHONEAUTH_OK);
    CHECKF(wait_taken(&d, 1, tu_timeout_ms(10000)) == 1, "events: %s", dump_taken(&d));
    json_t *second = taken_at(&d, 0);
    if (check_event(second, "userUpdated", uid, "+*******1233")) {
        CHECKF(same(tu_str(second, "data.user.displayName"), "second"), "%s", tu_dump(second));
        json_t *want = json_pack("[s]", "displayName");
        CHECKF(json_equal(tu_get(second, "data.changed"), want), "changed: %s", tu_dump(second));
        json_decref(want);
    }
    json_decref(second);
    CHECK(wait_pending(e, 0, tu_timeout_ms(10000)) == 0);
    CHECKF(offered_count(&c) == before + 1, "the removed handler was called again: %s", dump_offered(&c));
    check_calls(&c);
    check_calls(&d);
close:
    phoneauth_close(e);
out:
    free(uid);
    capture_destroy(&c);
    capture_destroy(&d);
}

static void test_bad_arguments(void) {
    capture c;
    capture_init(&c);
    CHECK(phoneauth_set_event_handler(NULL, handler, &c) == PHONEAUTH_ERR_INVALID_ARGUMENT);
    CHECK(phoneauth_set_event_handler(NULL, NULL, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);

    /* Without "events" there is nothing to handle, and nothing is recorded. */
    phoneauth_engine *e = tu_open(g_dir, "noevents", "{" NUMBERS "}");
    if (e) {
        CHECK(phoneauth_set_event_handler(e, handler, &c) == PHONEAUTH_ERR_INVALID_ARGUMENT);
        CHECK(phoneauth_set_event_handler(e, NULL, NULL) == PHONEAUTH_ERR_INVALID_ARGUMENT);
        char *uid = sign_in(e, ALICE);
        free(uid);
        CHECK(pending(e) == 0);
        phoneauth_close(e);
    }

    /* With "events", removing when none is installed is fine. */
    e = tu_open(g_dir, "removal", EVENTS_CONFIG);
    if (e) {
        CHECK(phoneauth_set_event_handler(e, NULL, NULL) == PHONEAUTH_OK);
        CHECK(phoneauth_set_event_handler(e, handler, &c) == PHONEAUTH_OK);
        CHECK(phoneauth_set_event_handler(e, NULL, NULL) == PHONEAUTH_OK);
        phoneauth_close(e);
    }
    CHECK(offered_count(&c) == 0);
    capture_destroy(&c);
}

int main(void) {
    g_dir = tu_tmpdir();
    test_sign_in_update_delete();
    test_include_phone_numbers();
    test_refused_event_comes_again_first();
    test_events_wait_for_a_handler();
    test_bad_arguments();
    tu_rmtree(g_dir);
    free(g_dir);
    return tu_finish();
}
