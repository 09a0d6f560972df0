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
 *   whole flow, and every failure by error code.
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
 *   floorPerFlowUs is their sum; each thread configuration reports costPerFlowUs (= 1e6 / flows/s)
 *   and cpuUsPerFlow, and their ratios to that floor. Parsing, JSON, phone-number validation and
 *   random numbers are left out of the floor on purpose: the ratio shows what they, and
 *   everything else the engine does, cost on top of the floor.
 *
 * Output: one JSON object on stdout, {"c": {"threads1": {...}, "threads2": {...}}, "floor": {...}};
 * progress and diagnostics go to stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sqlite3.h>

#include "phoneauth.h"

#define MAX_THREADS 8
#define SMS_TIMEOUT_SECONDS 10
#define MAX_ERROR_KINDS 32
#define MAX_SMS_TIMEOUTS 3 /* a run stops after this many flows saw no SMS */

static long sms_timeouts; /* in the current run, all threads */

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static void die(const char *what) {
    fprintf(stderr, "signin_bench: %s\n", what);
    exit(1);
}

static long env_long(const char *name, long fallback) {
    const char *v = getenv(name);
    if (!v || !*v) return fallback;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n <= 0) {
        fprintf(stderr, "signin_bench: ignoring %s=%s\n", name, v);
        return fallback;
    }
    return n;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array, in µs. */
static double pct_us(const uint64_t *sorted, size_t n, double p) {
    if (n == 0) return 0;
    size_t rank = (size_t)(p * (double)n + 0.999999);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    return sorted[rank - 1] / 1000.0;
}

static double round2(double x) { return (double)(long long)(x * 100 + (x >= 0 ? 0.5 : -0.5)) / 100; }

static json_t *percentiles(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return json_pack("{s:I,s:f,s:f,s:f,s:f}", "count", (json_int_t)n, "p50", round2(pct_us(v, n, .50)),
                     "p90", round2(pct_us(v, n, .90)), "p99", round2(pct_us(v, n, .99)), "max",
                     round2(n ? v[n - 1] / 1000.0 : 0));
}

static double median_us(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return round2(pct_us(v, n, .50));
}

/* ------------------------------------------------------------------------------------------ */
/* Mailbox: SMS codes posted by the delivery thread, taken by the flow waiting for them.       */

typedef struct mail {
    struct mail *next;
    char *verification_id;
    char code[16];
    uint64_t delivered_ns;
} mail;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t posted;
    mail *head;
    long delivered;  /* messages handed to the callback */
    long unparsable; /* messages the callback could not read */
    long pending;    /* messages posted, not yet taken */
} box = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0};

/* The SMS sender: runs on the engine's delivery thread. */
static int sms_sender(void *ctx, const char *message_json) {
    (void)ctx;
    uint64_t t = now_ns();
    json_error_t jerr;
    json_t *msg = json_loads(message_json, 0, &jerr);
    const char *vid = msg ? json_string_value(json_object_get(msg, "verificationId")) : NULL;
    const char *body = msg ? json_string_value(json_object_get(msg, "body")) : NULL;
    char code[16] = "";
    if (body) { /* the first run of 6 to 10 digits in the body is the code */
        for (const char *p = body; *p;) {
            if (*p >= '0' && *p <= '9') {
                size_t n = strspn(p, "0123456789");
                if (n >= 6 && n <= 10) {
                    memcpy(code, p, n);
                    code[n] = 0;
                    break;
                }
                p += n;
            } else {
                p++;
            }
        }
    }
    pthread_mutex_lock(&box.lock);
    box.delivered++;
    if (!vid || !code[0]) {
        box.unparsable++;
    } else {
        mail *m = malloc(sizeof *m);
        m->verification_id = strdup(vid);
        memcpy(m->code, code, sizeof code);
        m->delivered_ns = t;
        m->next = box.head;
        box.head = m;
        box.pending++;
        pthread_cond_broadcast(&box.posted);
    }
    pthread_mutex_unlock(&box.lock);
    json_decref(msg);
    return 0;
}

/* Waits for the code of `vid`; returns 0 and fills code/delivered_ns, or -1 after the timeout. */
static int take_code(const char *vid, char code[16], uint64_t *delivered_ns) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += SMS_TIMEOUT_SECONDS;
    pthread_mutex_lock(&box.lock);
    for (;;) {
        for (mail **pp = &box.head; *pp; pp = &(*pp)->next) {
            mail *m = *pp;
            if (strcmp(m->verification_id, vid) == 0) {
                *pp = m->next;
                box.pending--;
                pthread_mutex_unlock(&box.lock);
                memcpy(code, m->code, 16);
                *delivered_ns = m->delivered_ns;
                free(m->verification_id);
                free(m);
                return 0;
            }
        }
        if (pthread_cond_timedwait(&box.posted, &box.lock, &deadline) == ETIMEDOUT) {
            pthread_mutex_unlock(&box.lock);
            return -1;
        }
    }
}

static void clear_mailbox(void) {
    pthread_mutex_lock(&box.lock);
    while (box.head) {
        mail *m = box.head;
        box.head = m->next;
        free(m->verification_id);
        free(m);
    }
    box.delivered = box.unparsable = box.pending = 0;
    pthread_mutex_unlock(&box.lock);
}

/* ------------------------------------------------------------------------------------------ */
/* Errors, counted by code.                                                                    */

typedef struct {
    char key[64];
    long count;
    char sample[256];
} error_kind;

typedef struct {
    error_kind kinds[MAX_ERROR_KINDS];
    int n;
} error_table;

/* Records a failure: `where` is the step, out_json the engine's error object (may be NULL). */
static void record_error(error_table *t, const char *where, int status, const char *out_json) {
    char code[40] = "?";
    if (out_json) {
        const char *c = strstr(out_json, "\"code\"");
        if (c && (c = strchr(c + 6, '"'))) {
            size_t n = strcspn(c + 1, "\"");
            if (n >= sizeof code) n = sizeof code - 1;
            memcpy(code, c + 1, n);
            code[n] = 0;
        }
    }
    char key[64];
    snprintf(key, sizeof key, "%s:%s(%d)", where, code, status);
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->kinds[i].key, key) == 0) {
            t->kinds[i].count++;
            return;
        }
    if (t->n == MAX_ERROR_KINDS) return;
    error_kind *k = &t->kinds[t->n++];
    snprintf(k->key, sizeof k->key, "%s", key);
    k->count = 1;
    snprintf(k->sample, sizeof k->sample, "%s", out_json ? out_json : "");
}

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

/* +1 650 2xx xxxx: 1,000,000 distinct numbers, valid for libphonenumber (US, 650, exchange 2xx). */
static void phone_number(long i, char *buf, size_t size) {
    snprintf(buf, size, "+1650%03ld%04ld", 200 + (i / 10000) % 100, i % 10000);
}

/* Copies the string value of "verificationId" out of a result object. */
static int extract_vid(const char *json, char *vid, size_t size) {
    json_error_t jerr;
    json_t *o = json_loads(json, 0, &jerr);
    const char *v = o ? json_string_value(json_object_get(o, "verificationId")) : NULL;
    int ok = v && strlen(v) < size;
    if (ok) strcpy(vid, v);
    json_decref(o);
    return ok ? 0 : -1;
}

/* True when every character can go inside a JSON string literal as it is. */
static int json_plain(const char *s) {
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) return 0;
    return 1;
}

static int is_new_user(const char *json) {
    const char *p = strstr(json, "\"isNewUser\"");
    if (!p) return 0;
    p += strlen("\"isNewUser\"");
    while (*p == ' ' || *p == ':') p++;
    return strncmp(p, "true", 4) == 0;
}

static void *worker_main(void *arg) {
    worker *w = arg;
    char params[512], vid[256], code[16], phone[32];
    if (w->start) pthread_barrier_wait(w->start);
    for (;;) {
        long i = __atomic_fetch_add(w->next_index, 1, __ATOMIC_RELAXED);
        if (i >= w->end_index) break;
        phone_number(i, phone, sizeof phone);
        snprintf(params, sizeof params, "{\"phoneNumber\":\"%s\"}", phone);

        char *out = NULL;
        uint64_t t0 = now_ns();
        int rc = phoneauth_verify_phone_number(w->engine, params, &out);
        uint64_t t1 = now_ns();
        if (rc != PHONEAUTH_OK || extract_vid(out, vid, sizeof vid) != 0) {
            record_error(&w->errors, "verifyPhoneNumber", rc, out);
            phoneauth_free(out);
            w->failed++;
            continue;
        }
        phoneauth_free(out);

        uint64_t delivered;
        if (take_code(vid, code, &delivered) != 0) {
            record_error(&w->errors, "smsWait", -1, "{\"error\":{\"code\":\"timeout\"}}");
            w->failed++;
            if (__atomic_add_fetch(&sms_timeouts, 1, __ATOMIC_RELAXED) >= MAX_SMS_TIMEOUTS) {
                fprintf(stderr, "signin_bench: no SMS within %d s for %d flows: stopping this run\n",
                        SMS_TIMEOUT_SECONDS, MAX_SMS_TIMEOUTS);
                __atomic_store_n(w->next_index, w->end_index, __ATOMIC_RELAXED);
                break;
            }
            continue;
        }
        uint64_t t2 = now_ns();

        if (json_plain(vid)) {
            snprintf(params, sizeof params, "{\"verificationId\":\"%s\",\"verificationCode\":\"%s\"}",
                     vid, code);
        } else {
            json_t *o = json_pack("{s:s,s:s}", "verificationId", vid, "verificationCode", code);
            char *s = json_dumps(o, JSON_COMPACT);
            snprintf(params, sizeof params, "%s", s);
            free(s);
            json_decref(o);
        }
        rc = phoneauth_credential(w->engine, params, &out);
        uint64_t t3 = now_ns();
        if (rc != PHONEAUTH_OK) {
            record_error(&w->errors, "credential", rc, out);
            phoneauth_free(out);
            w->failed++;
            continue;
        }
        /* credential's result, {"credential": {...}}, is exactly signInWithCredential's params. */
        char *signed_in = NULL;
        rc = phoneauth_sign_in_with_credential(w->engine, out, &signed_in);
        uint64_t t4 = now_ns();
        phoneauth_free(out);
        if (rc != PHONEAUTH_OK) {
            record_error(&w->errors, "signInWithCredential", rc, signed_in);
            phoneauth_free(signed_in);
            w->failed++;
            continue;
        }
        if (!is_new_user(signed_in)) w->not_new_user++;
        phoneauth_free(signed_in);

        size_t k = w->nlat++;
        w->lat[L_VERIFY][k] = t1 - t0;
        w->lat[L_SMS_WAIT][k] = t2 - t1;
        w->lat[L_CREDENTIAL][k] = t3 - t2;
        w->lat[L_SIGN_IN][k] = t4 - t3;
        w->lat[L_SMS_DELIVERY][k] = delivered > t0 ? delivered - t0 : 0;
        w->lat[L_FLOW][k] = t4 - t0;
        w->ok++;
    }
    return NULL;
}

static phoneauth_engine *open_engine(const char *dir) {
    char db[4096], cfg[4600];
    snprintf(db, sizeof db, "%s/phoneauth.sqlite", dir);
    /* More flows than the default daily project quota: raise it (its counting still runs). */
    json_t *c = json_pack("{s:s, s:{s:i}}", "database", db, "quotas", "smsPerProjectPerDay", 100000000);
    char *s = json_dumps(c, JSON_COMPACT);
    snprintf(cfg, sizeof cfg, "%s", s);
    free(s);
    json_decref(c);
    char *err = NULL;
    phoneauth_engine *e = phoneauth_open(cfg, &err);
    if (!e) {
        fprintf(stderr, "signin_bench: phoneauth_open failed: %s\n", err ? err : "(no error)");
        phoneauth_free(err);
        exit(1);
    }
    if (phoneauth_set_sms_sender(e, sms_sender, NULL) != PHONEAUTH_OK) die("phoneauth_set_sms_sender failed");
    return e;
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
    pthread_mutex_lock(&box.lock);
    long warm_delivered = box.delivered;
    pthread_mutex_unlock(&box.lock);

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
    pthread_barrier_wait(&barrier);
    double cpu0 = cpu_seconds();
    uint64_t start = now_ns();
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    uint64_t elapsed = now_ns() - start;
    double cpu = cpu_seconds() - cpu0;
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
    json_t *errors = json_object();
    json_t *samples = json_object();
    for (int t = 0; t < threads; t++)
        for (int i = 0; i < w[t].errors.n; i++) {
            error_kind *k = &w[t].errors.kinds[i];
            json_int_t prev = json_integer_value(json_object_get(errors, k->key));
            json_object_set_new(errors, k->key, json_integer(prev + k->count));
            if (!json_object_get(samples, k->key)) {
                json_t *str = json_string(k->sample); /* NULL if truncation split a UTF-8 sequence */
                json_object_set_new(samples, k->key, str ? str : json_string("(not shown: not UTF-8)"));
            }
        }

    pthread_mutex_lock(&box.lock);
    long delivered = box.delivered - warm_delivered, unparsable = box.unparsable, stray = box.pending;
    pthread_mutex_unlock(&box.lock);

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
    json_object_set_new(r, "errors", errors);
    if (json_object_size(samples)) json_object_set_new(r, "errorSamples", samples);
    else json_decref(samples);
    json_object_set_new(r, "sms", json_pack("{s:I,s:I,s:I}", "delivered", (json_int_t)delivered,
                                            "unparsable", (json_int_t)unparsable, "neverTaken",
                                            (json_int_t)stray));
    json_object_set_new(r, "notNewUser", json_integer(not_new));
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

static void hex(const unsigned char *b, size_t n, char *out) {
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[b[i] >> 4];
        out[2 * i + 1] = d[b[i] & 15];
    }
    out[2 * n] = 0;
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
    fprintf(stderr, "signin_bench: measuring the floor...\n");
    double es = floor_es256(4000);
    double hm = floor_hmac(20000);
    double sql;
    json_t *tx = floor_sqlite(5000, &sql);
    *floor_us = es + hm + sql;
    json_t *f = json_pack("{s:f,s:f,s:o,s:f,s:f,s:s,s:s}", "es256SignUs", es, "hmacSha256Us", hm,
                          "sqliteTx", tx, "sqliteTxTotalUs", round2(sql), "floorPerFlowUs",
                          round2(*floor_us), "sqlite", sqlite3_libversion(), "openssl",
                          OpenSSL_version(OPENSSL_VERSION));
    return f;
}

int main(void) {
    long flows = env_long("BENCH_FLOWS_C", env_long("BENCH_FLOWS", 20000));
    if (flows > 900000) flows = 900000; /* distinct numbers available */
    if (phoneauth_abi_version() != PHONEAUTH_ABI_VERSION) die("library ABI version differs from the header");

    double floor_us;
    json_t *floor = measure_floor(&floor_us);

    json_t *c = json_object();
    json_object_set_new(c, "library", json_string(phoneauth_version()));
    json_object_set_new(c, "threads1", run_flows(1, flows, floor_us));
    json_object_set_new(c, "threads2", run_flows(2, flows, floor_us));

    json_t *doc = json_object();
    json_object_set_new(doc, "c", c);
    json_object_set_new(doc, "floor", floor);
    char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    puts(s);
    free(s);
    json_decref(doc);
    return 0;
}
