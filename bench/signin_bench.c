/*
 * signin_bench.c: throughput and latency of complete phone sign-ins through libphoneauth's C ABI,
 * next to the cost of the primitives such a sign-in cannot avoid, measured in the same run.
 *
 * What is measured
 *   One flow = verifyPhoneNumber (new number) -> wait until the engine's delivery thread hands the
 *   SMS to our callback (which parses the message JSON and posts the code to a mailbox keyed by
 *   verificationId) -> credential -> signInWithCredential (the user is new).
 *   Every flow uses a distinct valid US number (+1 650 2xx xxxx), so no resend window, rate limit
 *   per number or existing user is involved. For 1 and then 2 caller threads, each on a fresh
 *   engine over a fresh SQLite file in a mkdtemp directory, each thread runs flows back to back
 *   until N flows are done (N = $BENCH_FLOWS_C, else $BENCH_FLOWS, else 20000), after a short
 *   untimed warm-up. Reported: flows/s (wall clock), process CPU time per flow (all threads,
 *   including the engine's delivery thread), p50/p90/p99/max latency in µs of each call
 *   (verifyPhoneNumber, the SMS wait from verify's return until the code is in hand, credential,
 *   signInWithCredential), of the SMS delivery (verify's start until our callback runs) and of the
 *   whole flow, every failure by error code, and from getStorageStatistics the share of the run
 *   the SQLite connection was in use (store.busyShare: the engine's one connection, shared by the
 *   calling threads and the delivery thread, so the bound on what a second thread can add), its
 *   busy time and the calls that found it taken, per flow.
 *
 *   The floor, done directly in this process with the same libraries the engine relies on
 *   (medians of many timed repetitions):
 *     - one ES256 signature: OpenSSL EVP, P-256 key, SHA-256, over a JWT-sized signing input;
 *     - one HMAC-SHA256 of 64 bytes (the code is stored and checked as an HMAC);
 *     - the SQLite transactions the flow needs, with prepared statements, on a fresh file in WAL
 *       mode with synchronous=NORMAL:
 *         verify:   BEGIN IMMEDIATE; SELECT verification by phone (resend window); INSERT
 *                   verification; INSERT outbox; COMMIT
 *         delivered: UPDATE outbox SET state=sent, body=NULL (one autocommit transaction)
 *         sign-in:  BEGIN IMMEDIATE; SELECT verification; UPDATE it consumed; SELECT user by phone;
 *                   INSERT user; INSERT phone identity; INSERT refresh-token hash; COMMIT
 *   ($BENCH_FLOOR_REPS of the SQLite transactions, default 5000; 4/5 as many signatures, 4 times
 *   as many HMACs). floorPerFlowUs is their sum; each thread configuration reports costPerFlowUs
 *   (= 1e6 / flows/s) and cpuUsPerFlow, and their ratios to that floor. Parsing, JSON,
 *   phone-number validation and random numbers are left out of the floor on purpose: the ratio
 *   shows what they, and everything else the engine does, cost on top of the floor.
 *
 * Output: one JSON object on stdout, {"c": {"threads1": {...}, "threads2": {...}}, "floor": {...}};
 * progress and diagnostics go to stderr.
 *
 * The flow, the SMS mailbox, the percentiles and the error counts are benchutil.c's, shared with
 * pg_bench.c.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sqlite3.h>

#include "benchutil.h"
#include "phoneauth.h"

#define MAX_THREADS 8
#define MAX_SMS_TIMEOUTS 3 /* a run stops after this many flows saw no SMS */

const char bench_name[] = "signin_bench";

static long sms_timeouts; /* in the current run, all threads */

/* ------------------------------------------------------------------------------------------ */
/* The flow driver.                                                                            */

enum { L_VERIFY, L_SMS_WAIT, L_CREDENTIAL, L_SIGN_IN, L_SMS_DELIVERY, L_FLOW, L_COUNT };
static const char *latency_names[L_COUNT] = {"verifyPhoneNumber", "smsWait", "credential",
                                             "signInWithCredential", "smsDelivery", "flow"};

typedef struct {
    phoneauth_engine *engine;
    long *next_index; /* shared counter of flow indices */
    long end_index;   /* exclusive */
    pthread_barrier_t *start;
    uint64_t *lat[L_COUNT];
    size_t nlat;
    long ok, failed;
    long not_new_user;
    error_table errors;
} worker;

static void *worker_main(void *arg) {
    worker *w = arg;
    if (w->start) pthread_barrier_wait(w->start);
    for (;;) {
        long i = __atomic_fetch_add(w->next_index, 1, __ATOMIC_RELAXED);
        if (i >= w->end_index) break;
        flow_times t;
        int rc = signin_flow(w->engine, i, &w->errors, &t);
        if (rc != FLOW_OK) {
            w->failed++;
            if (rc == FLOW_NO_SMS && __atomic_add_fetch(&sms_timeouts, 1, __ATOMIC_RELAXED) >= MAX_SMS_TIMEOUTS) {
                fprintf(stderr, "signin_bench: no SMS within %d s for %d flows: stopping this run\n",
                        SMS_TIMEOUT_SECONDS, MAX_SMS_TIMEOUTS);
                __atomic_store_n(w->next_index, w->end_index, __ATOMIC_RELAXED);
                break;
            }
            continue;
        }
        if (!t.new_user) w->not_new_user++;

        size_t k = w->nlat++;
        w->lat[L_VERIFY][k] = t.verified - t.start;
        w->lat[L_SMS_WAIT][k] = t.code - t.verified;
        w->lat[L_CREDENTIAL][k] = t.credential - t.code;
        w->lat[L_SIGN_IN][k] = t.signed_in - t.credential;
        w->lat[L_SMS_DELIVERY][k] = t.delivered > t.start ? t.delivered - t.start : 0;
        w->lat[L_FLOW][k] = t.signed_in - t.start;
        w->ok++;
    }
    return NULL;
}

static phoneauth_engine *open_engine(const char *dir) {
    char db[4096];
    snprintf(db, sizeof db, "%s/phoneauth.sqlite", dir);
    /* More flows than the default daily project quota: raise it (its counting still runs). */
    return open_engine_json(json_pack("{s:s, s:{s:i}}", "database", db, "quotas", "smsPerProjectPerDay", 100000000));
}

static void rm_dir(const char *dir) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "signin_bench: could not remove %s\n", dir);
}

/* Runs warm-up then `flows` timed flows with `threads` threads on a fresh engine. */
static json_t *run_flows(int threads, long flows, double floor_us) {
    char dir[] = "/tmp/phoneauth-bench-XXXXXX";
    if (!mkdtemp(dir)) die("mkdtemp failed");
    phoneauth_engine *engine = open_engine(dir);
    clear_mailbox();
    sms_timeouts = 0;

    worker w[MAX_THREADS];
    memset(w, 0, sizeof w);
    long next = 0;

    /* Warm-up: untimed, on the same engine and file, numbers below the timed range. */
    long warmup = flows / 20 < 200 ? flows / 20 : 200;
    if (warmup > 0) {
        worker *ww = &w[0];
        ww->engine = engine;
        ww->next_index = &next;
        ww->end_index = warmup;
        for (int l = 0; l < L_COUNT; l++) ww->lat[l] = calloc((size_t)warmup, sizeof(uint64_t));
        worker_main(ww);
        for (int l = 0; l < L_COUNT; l++) free(ww->lat[l]);
        if (ww->failed)
            fprintf(stderr, "signin_bench: %ld of %ld warm-up flows failed (first: %s)\n", ww->failed,
                    warmup, ww->errors.n ? ww->errors.kinds[0].sample : "");
        memset(ww, 0, sizeof *ww);
        next = warmup; /* the last fetch went one past the end */
    }
    long warm_delivered, unparsable, stray;
    mailbox_counts(&warm_delivered, &unparsable, &stray);

    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)threads + 1);
    pthread_t tid[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        w[t].engine = engine;
        w[t].next_index = &next;
        w[t].end_index = warmup + flows;
        w[t].start = &barrier;
        for (int l = 0; l < L_COUNT; l++) {
            w[t].lat[l] = calloc((size_t)flows, sizeof(uint64_t));
            if (!w[t].lat[l]) die("out of memory");
        }
        if (pthread_create(&tid[t], NULL, worker_main, &w[t]) != 0) die("pthread_create failed");
    }
    fprintf(stderr, "signin_bench: %d thread(s), %ld flows...\n", threads, flows);
    json_t *store0 = storage_statistics(engine);
    pthread_barrier_wait(&barrier);
    double cpu0 = cpu_seconds();
    uint64_t start = now_ns();
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    uint64_t elapsed = now_ns() - start;
    double cpu = cpu_seconds() - cpu0;
    json_t *store1 = storage_statistics(engine);
    pthread_barrier_destroy(&barrier);

    /* Merge. */
    long ok = 0, failed = 0, not_new = 0;
    size_t total = 0;
    for (int t = 0; t < threads; t++) {
        ok += w[t].ok;
        failed += w[t].failed;
        not_new += w[t].not_new_user;
        total += w[t].nlat;
    }
    json_t *lat = json_object();
    for (int l = 0; l < L_COUNT; l++) {
        uint64_t *all = malloc((total ? total : 1) * sizeof(uint64_t));
        size_t k = 0;
        for (int t = 0; t < threads; t++) {
            memcpy(all + k, w[t].lat[l], w[t].nlat * sizeof(uint64_t));
            k += w[t].nlat;
            free(w[t].lat[l]);
        }
        json_object_set_new(lat, latency_names[l], percentiles(all, total));
        free(all);
    }
    error_table errors = {.n = 0};
    for (int t = 0; t < threads; t++)
        for (int i = 0; i < w[t].errors.n; i++)
            add_error(&errors, w[t].errors.kinds[i].key, w[t].errors.kinds[i].count, w[t].errors.kinds[i].sample);

    long delivered;
    mailbox_counts(&delivered, &unparsable, &stray);
    delivered -= warm_delivered;

    phoneauth_close(engine);
    rm_dir(dir);
    clear_mailbox();

    double secs = elapsed / 1e9;
    double fps = ok / secs;
    double cost = ok ? 1e6 / fps : 0;
    double cpu_per_flow = ok ? cpu * 1e6 / ok : 0;
    json_t *r = json_pack("{s:i,s:I,s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f}", "threads", threads,
                          "flows", (json_int_t)ok, "failed", (json_int_t)failed, "warmupFlows",
                          (json_int_t)warmup, "seconds", round2(secs), "flowsPerSecond", round2(fps),
                          "costPerFlowUs", round2(cost), "ratioToFloor",
                          round2(floor_us > 0 ? cost / floor_us : 0), "cpuUsPerFlow",
                          round2(cpu_per_flow), "cpuRatioToFloor",
                          round2(floor_us > 0 ? cpu_per_flow / floor_us : 0));
    json_object_set_new(r, "latencyUs", lat);
    set_errors_json(r, &errors);
    json_object_set_new(r, "sms", json_pack("{s:I,s:I,s:I}", "delivered", (json_int_t)delivered,
                                            "unparsable", (json_int_t)unparsable, "neverTaken",
                                            (json_int_t)stray));
    json_object_set_new(r, "notNewUser", json_integer(not_new));
    /* The SQLite connection (the pool's one): the share of the run it was in use, which bounds what
       more threads gain, and how often a call found it taken. */
    double busy_us = (double)(json_integer_value(json_object_get(store1, "busyMicroseconds")) -
                              json_integer_value(json_object_get(store0, "busyMicroseconds")));
    long waits = (long)(json_integer_value(json_object_get(store1, "waits")) -
                        json_integer_value(json_object_get(store0, "waits")));
    json_object_set_new(r, "store", json_pack("{s:f,s:f,s:f}", "busyShare", round2(busy_us / (secs * 1e6)),
                                              "busyUsPerFlow", round2(ok ? busy_us / ok : 0), "waitsPerFlow",
                                              round2(ok ? (double)waits / ok : 0)));
    json_decref(store0);
    json_decref(store1);
    if (sms_timeouts >= MAX_SMS_TIMEOUTS) json_object_set_new(r, "stoppedNoSms", json_true());
    fprintf(stderr, "signin_bench: %d thread(s): %.0f flows/s, %ld failed\n", threads, fps, failed);
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* The floor.                                                                                   */

static double floor_es256(int reps) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    if (!key) die("EVP_EC_gen failed");
    /* A JWT-sized signing input: base64url(header) "." base64url(claims), ~400 bytes. */
    char input[400];
    memset(input, 'a', sizeof input);
    input[36] = '.';
    unsigned char sig[128];
    uint64_t *t = calloc((size_t)reps, sizeof(uint64_t));
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    for (int i = -reps / 10; i < reps; i++) {
        input[100] = (char)('a' + (i & 15));
        size_t len = sizeof sig;
        uint64_t a = now_ns();
        if (EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key) != 1 ||
            EVP_DigestSign(ctx, sig, &len, (const unsigned char *)input, sizeof input) != 1)
            die("ES256 signature failed");
        uint64_t b = now_ns();
        if (i >= 0) t[i] = b - a;
        EVP_MD_CTX_reset(ctx);
    }
    EVP_MD_CTX_free(ctx);
    EVP_PKEY_free(key);
    double m = median_us(t, (size_t)reps);
    free(t);
    return m;
}

static double floor_hmac(int reps) {
    unsigned char key[32], msg[64], mac[EVP_MAX_MD_SIZE];
    unsigned int len;
    RAND_bytes(key, sizeof key);
    RAND_bytes(msg, sizeof msg);
    uint64_t *t = calloc((size_t)reps, sizeof(uint64_t));
    for (int i = -reps / 10; i < reps; i++) {
        msg[0] = (unsigned char)i;
        uint64_t a = now_ns();
        if (!HMAC(EVP_sha256(), key, sizeof key, msg, sizeof msg, mac, &len)) die("HMAC failed");
        uint64_t b = now_ns();
        if (i >= 0) t[i] = b - a;
    }
    double m = median_us(t, (size_t)reps);
    free(t);
    return m;
}

static void sql_exec(sqlite3 *db, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "signin_bench: sqlite: %s: %s\n", sql, err ? err : "?");
        exit(1);
    }
}

static sqlite3_stmt *prep(sqlite3 *db, const char *sql) {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK) {
        fprintf(stderr, "signin_bench: prepare: %s: %s\n", sql, sqlite3_errmsg(db));
        exit(1);
    }
    return s;
}

static void step_done(sqlite3 *db, sqlite3_stmt *s) {
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    }
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "signin_bench: step: %s\n", sqlite3_errmsg(db));
        exit(1);
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
}

static json_t *floor_sqlite(int reps, double *sum_us) {
    char dir[] = "/tmp/phoneauth-floor-XXXXXX";
    if (!mkdtemp(dir)) die("mkdtemp failed");
    char path[4200];
    snprintf(path, sizeof path, "%s/floor.sqlite", dir);
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        die("sqlite3_open failed");
    sql_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
    sql_exec(db,
             "CREATE TABLE verifications(id TEXT PRIMARY KEY, phone TEXT NOT NULL, code_hmac BLOB NOT NULL,"
             " created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,"
             " state INTEGER NOT NULL DEFAULT 0);"
             "CREATE INDEX verifications_phone ON verifications(phone, created_at);"
             "CREATE TABLE outbox(id INTEGER PRIMARY KEY, verification_id TEXT NOT NULL, to_number TEXT NOT NULL,"
             " body TEXT, language TEXT NOT NULL, state INTEGER NOT NULL DEFAULT 0,"
             " attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL);"
             "CREATE INDEX outbox_pending ON outbox(state, next_attempt_at);"
             "CREATE TABLE users(uid TEXT PRIMARY KEY, phone TEXT UNIQUE, created_at INTEGER NOT NULL,"
             " last_sign_in_at INTEGER NOT NULL, disabled INTEGER NOT NULL DEFAULT 0,"
             " tokens_valid_after INTEGER NOT NULL);"
             "CREATE TABLE identities(provider TEXT NOT NULL, provider_uid TEXT NOT NULL,"
             " uid TEXT NOT NULL REFERENCES users(uid), PRIMARY KEY(provider, provider_uid));"
             "CREATE TABLE refresh_tokens(hash BLOB PRIMARY KEY, uid TEXT NOT NULL REFERENCES users(uid),"
             " created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);");

    sqlite3_stmt *begin = prep(db, "BEGIN IMMEDIATE"), *commit = prep(db, "COMMIT");
    sqlite3_stmt *v_find = prep(db, "SELECT id, created_at FROM verifications WHERE phone=?1 AND state=0"
                                    " ORDER BY created_at DESC LIMIT 1");
    sqlite3_stmt *v_ins = prep(db, "INSERT INTO verifications(id, phone, code_hmac, created_at, expires_at)"
                                   " VALUES(?1, ?2, ?3, ?4, ?5)");
    sqlite3_stmt *o_ins = prep(db, "INSERT INTO outbox(verification_id, to_number, body, language,"
                                   " next_attempt_at) VALUES(?1, ?2, ?3, 'en', ?4)");
    sqlite3_stmt *o_sent = prep(db, "UPDATE outbox SET state=1, body=NULL, attempts=attempts+1 WHERE id=?1");
    sqlite3_stmt *v_get = prep(db, "SELECT phone, code_hmac, expires_at, attempts, state FROM verifications"
                                   " WHERE id=?1");
    sqlite3_stmt *v_use = prep(db, "UPDATE verifications SET state=1 WHERE id=?1 AND state=0");
    sqlite3_stmt *u_find = prep(db, "SELECT uid, disabled FROM users WHERE phone=?1");
    sqlite3_stmt *u_ins = prep(db, "INSERT INTO users(uid, phone, created_at, last_sign_in_at,"
                                   " tokens_valid_after) VALUES(?1, ?2, ?3, ?3, ?3)");
    sqlite3_stmt *i_ins = prep(db, "INSERT INTO identities(provider, provider_uid, uid) VALUES('phone', ?1, ?2)");
    sqlite3_stmt *r_ins = prep(db, "INSERT INTO refresh_tokens(hash, uid, created_at, expires_at)"
                                   " VALUES(?1, ?2, ?3, ?4)");

    uint64_t *t1 = calloc((size_t)reps, sizeof(uint64_t));
    uint64_t *t2 = calloc((size_t)reps, sizeof(uint64_t));
    uint64_t *t3 = calloc((size_t)reps, sizeof(uint64_t));
    const char *body = "123456 is your verification code.";
    for (int i = -reps / 10; i < reps; i++) {
        unsigned char rnd[64];
        char vid[33], uid[33], phone[32];
        RAND_bytes(rnd, sizeof rnd);
        hex(rnd, 16, vid);
        hex(rnd + 16, 14, uid);
        phone_number(i + reps, phone, sizeof phone);
        sqlite3_int64 now = 1800000000 + i;

        uint64_t a = now_ns();
        step_done(db, begin);
        sqlite3_bind_text(v_find, 1, phone, -1, SQLITE_STATIC);
        step_done(db, v_find);
        sqlite3_bind_text(v_ins, 1, vid, -1, SQLITE_STATIC);
        sqlite3_bind_text(v_ins, 2, phone, -1, SQLITE_STATIC);
        sqlite3_bind_blob(v_ins, 3, rnd + 32, 32, SQLITE_STATIC);
        sqlite3_bind_int64(v_ins, 4, now);
        sqlite3_bind_int64(v_ins, 5, now + 300);
        step_done(db, v_ins);
        sqlite3_bind_text(o_ins, 1, vid, -1, SQLITE_STATIC);
        sqlite3_bind_text(o_ins, 2, phone, -1, SQLITE_STATIC);
        sqlite3_bind_text(o_ins, 3, body, -1, SQLITE_STATIC);
        sqlite3_bind_int64(o_ins, 4, now);
        step_done(db, o_ins);
        sqlite3_int64 outbox_id = sqlite3_last_insert_rowid(db);
        step_done(db, commit);
        uint64_t b = now_ns();

        sqlite3_bind_int64(o_sent, 1, outbox_id);
        step_done(db, o_sent);
        uint64_t c = now_ns();

        step_done(db, begin);
        sqlite3_bind_text(v_get, 1, vid, -1, SQLITE_STATIC);
        step_done(db, v_get);
        sqlite3_bind_text(v_use, 1, vid, -1, SQLITE_STATIC);
        step_done(db, v_use);
        sqlite3_bind_text(u_find, 1, phone, -1, SQLITE_STATIC);
        step_done(db, u_find);
        sqlite3_bind_text(u_ins, 1, uid, -1, SQLITE_STATIC);
        sqlite3_bind_text(u_ins, 2, phone, -1, SQLITE_STATIC);
        sqlite3_bind_int64(u_ins, 3, now);
        step_done(db, u_ins);
        sqlite3_bind_text(i_ins, 1, phone, -1, SQLITE_STATIC);
        sqlite3_bind_text(i_ins, 2, uid, -1, SQLITE_STATIC);
        step_done(db, i_ins);
        sqlite3_bind_blob(r_ins, 1, rnd + 30, 32, SQLITE_STATIC);
        sqlite3_bind_text(r_ins, 2, uid, -1, SQLITE_STATIC);
        sqlite3_bind_int64(r_ins, 3, now);
        sqlite3_bind_int64(r_ins, 4, now + 30 * 86400);
        step_done(db, r_ins);
        step_done(db, commit);
        uint64_t d = now_ns();

        if (i >= 0) {
            t1[i] = b - a;
            t2[i] = c - b;
            t3[i] = d - c;
        }
    }
    sqlite3_stmt *all[] = {begin, commit, v_find, v_ins, o_ins, o_sent, v_get, v_use, u_find, u_ins, i_ins, r_ins};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) sqlite3_finalize(all[i]);
    sqlite3_close(db);
    rm_dir(dir);

    double m1 = median_us(t1, (size_t)reps), m2 = median_us(t2, (size_t)reps), m3 = median_us(t3, (size_t)reps);
    free(t1);
    free(t2);
    free(t3);
    *sum_us = m1 + m2 + m3;
    return json_pack("{s:f,s:f,s:f}", "verifyTxUs", m1, "deliveredTxUs", m2, "signInTxUs", m3);
}

static json_t *measure_floor(double *floor_us) {
    /* Repetitions: $BENCH_FLOOR_REPS of the SQLite transactions (default 5000), 4/5 as many
     * signatures and 4 times as many HMACs (a short run, as `make bench-smoke`'s, asks for few). */
    long reps = env_long("BENCH_FLOOR_REPS", 5000);
    if (reps < 10) reps = 10;
    if (reps > 400000) reps = 400000; /* distinct numbers: floor_sqlite uses reps + i */
    fprintf(stderr, "signin_bench: measuring the floor...\n");
    double es = floor_es256((int)(reps * 4 / 5));
    double hm = floor_hmac((int)(reps * 4));
    double sql;
    json_t *tx = floor_sqlite((int)reps, &sql);
    *floor_us = es + hm + sql;
    json_t *f = json_pack("{s:f,s:f,s:o,s:f,s:f,s:s,s:s}", "es256SignUs", es, "hmacSha256Us", hm,
                          "sqliteTx", tx, "sqliteTxTotalUs", round2(sql), "floorPerFlowUs",
                          round2(*floor_us), "sqlite", sqlite3_libversion(), "openssl",
                          OpenSSL_version(OPENSSL_VERSION));
    return f;
}

/* Under callgrind (callgrind_bench.py): BENCH_ONLY=flows runs N flows on one thread (on
 * BENCH_THREADS threads, for profiling the threaded case), BENCH_ONLY=floor
 * the floor's primitives N times each, with N = BENCH_FLOWS_C; two runs with different N give the
 * instructions of one flow, or of the floor, by difference (start-up cancels out). */
static int run_only(const char *what, long n) {
    if (strcmp(what, "flows") == 0) {
        long threads = env_long("BENCH_THREADS", 1);
        json_decref(run_flows(threads < 1 || threads > MAX_THREADS ? 1 : (int)threads, n, 0));
    } else if (strcmp(what, "floor") == 0) {
        double sql;
        floor_es256((int)n);
        floor_hmac((int)n);
        json_decref(floor_sqlite((int)n, &sql));
    } else {
        die("BENCH_ONLY must be flows or floor");
    }
    return 0;
}

int main(void) {
    long flows = env_long("BENCH_FLOWS_C", env_long("BENCH_FLOWS", 20000));
    if (flows > 900000) flows = 900000; /* distinct numbers available */
    if (phoneauth_abi_version() != PHONEAUTH_ABI_VERSION) die("library ABI version differs from the header");
    const char *only = getenv("BENCH_ONLY");
    if (only && *only) return run_only(only, flows);

    double floor_us;
    json_t *floor = measure_floor(&floor_us);

    json_t *c = json_object();
    json_object_set_new(c, "library", json_string(phoneauth_version()));
    json_object_set_new(c, "threads1", run_flows(1, flows, floor_us));
    json_object_set_new(c, "threads2", run_flows(2, flows, floor_us));

    json_t *doc = json_object();
    json_object_set_new(doc, "c", c);
    json_object_set_new(doc, "floor", floor);
    print_json(doc);
    return 0;
}
