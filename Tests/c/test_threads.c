/* test_threads.c: one engine used from several threads at once. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_THREADS 4

static phoneauth_engine *g_e;
static tu_sms g_sms;
static pthread_barrier_t g_barrier;

/* ---- 4 threads, full sign-ins ---------------------------------------------------------------- */

typedef struct {
    const char *phone;
    int rounds;
    int ok;             /* successful sign-ins */
    int new_users;      /* isNewUser true */
    char uid[256];
    int same_uid;       /* every sign-in of this thread gave the same uid */
} signer;

static void *signer_main(void *arg) {
    signer *s = arg;
    s->same_uid = 1;
    pthread_barrier_wait(&g_barrier);
    for (int i = 0; i < s->rounds; i++) {
        json_t *r = tu_sms_sign_in(g_e, &g_sms, s->phone);
        if (!r) break;
        s->ok++;
        if (tu_bool(r, "additionalUserInfo.isNewUser") == 1) s->new_users++;
        const char *uid = tu_str(r, "user.uid");
        if (uid && !s->uid[0]) snprintf(s->uid, sizeof s->uid, "%s", uid);
        if (!uid || strcmp(uid, s->uid) != 0) s->same_uid = 0;
        /* use the session too: refresh, verify */
        int st;
        json_t *x = tu_callj(g_e, "refreshIdToken",
                             json_pack("{s:s?}", "refreshToken", tu_str(r, "refreshToken")), &st);
        EXPECT_OK(x, st);
        json_t *y = tu_callj(g_e, "verifyIdToken", json_pack("{s:s?}", "idToken", tu_str(x, "idToken")),
                             &st);
        EXPECT_OK(y, st);
        json_decref(y);
        json_decref(x);
        json_decref(r);
    }
    return NULL;
}

static void test_parallel_sign_ins(void) {
    static const char *phones[N_THREADS] = {"+16505553434", "+16505553435", "+447400123456",
                                            "+447400123457"};
    signer s[N_THREADS];
    pthread_t t[N_THREADS];
    int rounds = tu_memcheck() ? 1 : 3;
    pthread_barrier_init(&g_barrier, NULL, N_THREADS);
    for (int i = 0; i < N_THREADS; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].phone = phones[i];
        s[i].rounds = rounds;
        CHECK(pthread_create(&t[i], NULL, signer_main, &s[i]) == 0);
    }
    for (int i = 0; i < N_THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&g_barrier);
    for (int i = 0; i < N_THREADS; i++) {
        CHECKF(s[i].ok == rounds, "thread %d (%s): %d of %d sign-ins", i, s[i].phone, s[i].ok, rounds);
        CHECKF(s[i].new_users == 1, "thread %d: isNewUser true %d times (want once)", i, s[i].new_users);
        CHECKF(s[i].same_uid, "thread %d: uid changed between sign-ins", i);
        for (int j = 0; j < i; j++)
            CHECKF(strcmp(s[i].uid, s[j].uid) != 0, "threads %d and %d share uid %s", i, j, s[i].uid);
    }
}

/* ---- two threads racing one credential: one session ---------------------------------------- */

typedef struct {
    const char *params;
    int status;
    char code[64];
    char token[1024];   /* the new refresh token, for refresh races */
} racer;

static void *racer_main(void *arg) {
    racer *r = arg;
    pthread_barrier_wait(&g_barrier);
    int st;
    json_t *res = tu_call(g_e, "signInWithCredential", r->params, &st);
    r->status = st;
    snprintf(r->code, sizeof r->code, "%s", tu_str(res, "error.code") ? tu_str(res, "error.code") : "");
    snprintf(r->token, sizeof r->token, "%s", tu_str(res, "refreshToken") ? tu_str(res, "refreshToken") : "");
    json_decref(res);
    return NULL;
}

static int race(const char *params, racer rc[2]) {
    pthread_t t[2];
    pthread_barrier_init(&g_barrier, NULL, 2);
    for (int i = 0; i < 2; i++) {
        rc[i].params = params;
        rc[i].status = -1;
        rc[i].code[0] = 0;
        pthread_create(&t[i], NULL, racer_main, &rc[i]);
    }
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&g_barrier);
    return (rc[0].status == PHONEAUTH_OK) + (rc[1].status == PHONEAUTH_OK);
}

static void test_credential_race(void) {
    int rounds = tu_memcheck() ? 2 : 10;
    for (int i = 0; i < rounds; i++) {
        json_t *cred = tu_sms_credential(g_e, &g_sms, "+16505553436", NULL);
        if (!cred) break;
        json_t *p = json_pack("{s:o}", "credential", cred);
        char *params = json_dumps(p, JSON_COMPACT);
        json_decref(p);
        racer rc[2];
        /* The code opens one session; the second presentation, within signInRetrySeconds, is
         * taken for a retry and gets that same session. */
        int wins = race(params, rc);
        CHECKF(wins == 2, "round %d: %d successes (%d %s, %d %s)", i, wins, rc[0].status, rc[0].code,
               rc[1].status, rc[1].code);
        CHECKF(rc[0].token[0] && strcmp(rc[0].token, rc[1].token) == 0, "round %d: two sessions", i);
        free(params);
    }
}

/* Two threads refreshing with the same refresh token: one rotation, and both get its token
 * (within refreshReuseIntervalSeconds a racing refresh is not theft). */
static void *refresher_main(void *arg) {
    racer *r = arg;
    pthread_barrier_wait(&g_barrier);
    int st;
    json_t *res = tu_call(g_e, "refreshIdToken", r->params, &st);
    r->status = st;
    snprintf(r->code, sizeof r->code, "%s", tu_str(res, "error.code") ? tu_str(res, "error.code") : "");
    snprintf(r->token, sizeof r->token, "%s", tu_str(res, "refreshToken") ? tu_str(res, "refreshToken") : "");
    json_decref(res);
    return NULL;
}

static void test_refresh_race(void) {
    int rounds = tu_memcheck() ? 2 : 10;
    for (int i = 0; i < rounds; i++) {
        json_t *r = tu_sms_sign_in(g_e, &g_sms, "+16505553437");
        if (!r) break;
        json_t *p = json_pack("{s:s?}", "refreshToken", tu_str(r, "refreshToken"));
        char *params = json_dumps(p, JSON_COMPACT);
        json_decref(p);
        json_decref(r);
        racer rc[2];
        pthread_t t[2];
        pthread_barrier_init(&g_barrier, NULL, 2);
        for (int k = 0; k < 2; k++) {
            rc[k].params = params;
            pthread_create(&t[k], NULL, refresher_main, &rc[k]);
        }
        for (int k = 0; k < 2; k++) pthread_join(t[k], NULL);
        pthread_barrier_destroy(&g_barrier);
        int wins = (rc[0].status == PHONEAUTH_OK) + (rc[1].status == PHONEAUTH_OK);
        CHECKF(wins == 2, "round %d: %d refreshes succeeded (%d %s, %d %s)", i, wins, rc[0].status,
               rc[0].code, rc[1].status, rc[1].code);
        CHECKF(rc[0].token[0] && strcmp(rc[0].token, rc[1].token) == 0, "round %d: two different new tokens", i);
        free(params);
    }
}

/* ---- many threads of cheap calls, while the sender is swapped -------------------------------- */

static int g_stop;

static void *noise_main(void *arg) {
    (void)arg;
    int n = tu_memcheck() ? 20 : 300;
    for (int i = 0; i < n; i++) {
        char *out = NULL;
        int st = phoneauth_call(g_e, "getJwks", NULL, &out);
        if (st != PHONEAUTH_OK || !out) CHECKF(0, "getJwks under load: %d", st);
        phoneauth_free(out);
        out = NULL;
        st = phoneauth_call(g_e, "verifyPhoneNumber", "{\"phoneNumber\": 5}", &out);
        if (st != PHONEAUTH_ERR_INVALID_ARGUMENT) CHECKF(0, "bad input under load: %d", st);
        phoneauth_free(out);
        st = phoneauth_call(g_e, "noSuchMethod", NULL, NULL);
        if (st != PHONEAUTH_ERR_UNKNOWN_METHOD) CHECKF(0, "unknown method under load: %d", st);
    }
    CHECK(1);
    return NULL;
}

static void *swapper_main(void *arg) {
    tu_sms *other = arg;
    while (!__atomic_load_n(&g_stop, __ATOMIC_SEQ_CST)) {
        phoneauth_set_sms_sender(g_e, tu_sms_sender, other);
        phoneauth_set_sms_sender(g_e, tu_sms_sender, &g_sms);
        tu_sleep_ms(1);
    }
    return NULL;
}

static void test_noise(void) {
    tu_sms other;
    tu_sms_init(&other, "other");
    pthread_t t[N_THREADS], sw;
    g_stop = 0;
    pthread_create(&sw, NULL, swapper_main, &other);
    for (int i = 0; i < N_THREADS; i++) pthread_create(&t[i], NULL, noise_main, NULL);
    for (int i = 0; i < N_THREADS; i++) pthread_join(t[i], NULL);
    __atomic_store_n(&g_stop, 1, __ATOMIC_SEQ_CST);
    pthread_join(sw, NULL);
    /* the sender is g_sms again; a sign-in still works */
    CHECK(phoneauth_set_sms_sender(g_e, tu_sms_sender, &g_sms) == PHONEAUTH_OK);
    json_t *r = tu_sms_sign_in(g_e, &g_sms, "+16505553438");
    CHECK(r != NULL);
    json_decref(r);
    tu_sms_destroy(&other);
}

int main(void) {
    char *dir = tu_tmpdir();
    tu_sms_init(&g_sms, NULL);
    /* Threads verify the same numbers many times: no per-number send limit here. */
    g_e = tu_open(dir, "threads", "{\"quotas\": {\"smsPerNumberPerHour\": 0}}");
    if (g_e) {
        CHECK(phoneauth_set_sms_sender(g_e, tu_sms_sender, &g_sms) == PHONEAUTH_OK);
        test_parallel_sign_ins();
        test_credential_race();
        test_refresh_race();
        test_noise();
    }
    phoneauth_close(g_e);
    CHECKF(!g_sms.overlapped, "two SMS callbacks of one engine ran at the same time");
    CHECKF(!g_sms.on_caller_thread, "an SMS callback ran on a caller's thread");
    tu_sms_destroy(&g_sms);
    tu_rmtree(dir);
    free(dir);
    return tu_finish();
}
