/*
 * benchutil.c: the code signin_bench.c and pg_bench.c share (see benchutil.h): helpers, latency
 * percentiles, failures counted by kind, the SMS mailbox and one complete sign-in flow.
 */
#define _GNU_SOURCE
#include "benchutil.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* ------------------------------------------------------------------------------------------ */
/* Small helpers.                                                                               */

uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

void die(const char *what) {
    fprintf(stderr, "%s: %s\n", bench_name, what);
    exit(1);
}

long env_long(const char *name, long fallback) {
    const char *v = getenv(name);
    if (!v || !*v) return fallback;
    char *end;
    long n = strtol(v, &end, 10);
    if (*end || n <= 0) {
        fprintf(stderr, "%s: ignoring %s=%s\n", bench_name, name, v);
        return fallback;
    }
    return n;
}

double round2(double x) { return (double)(long long)(x * 100 + (x >= 0 ? 0.5 : -0.5)) / 100; }

void hex(const unsigned char *b, size_t n, char *out) {
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[b[i] >> 4];
        out[2 * i + 1] = d[b[i] & 15];
    }
    out[2 * n] = 0;
}

void phone_number(long i, char *buf, size_t size) {
    snprintf(buf, size, "+1650%03ld%04ld", 200 + (i / 10000) % 100, i % 10000);
}

void print_json(json_t *doc) {
    char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    puts(s);
    free(s);
    json_decref(doc);
}

/* ------------------------------------------------------------------------------------------ */
/* Latencies.                                                                                   */

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

json_t *percentiles(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return json_pack("{s:I,s:f,s:f,s:f,s:f}", "count", (json_int_t)n, "p50", round2(pct_us(v, n, .50)),
                     "p90", round2(pct_us(v, n, .90)), "p99", round2(pct_us(v, n, .99)), "max",
                     round2(n ? v[n - 1] / 1000.0 : 0));
}

double median_us(uint64_t *v, size_t n) {
    qsort(v, n, sizeof *v, cmp_u64);
    return round2(pct_us(v, n, .50));
}

/* ------------------------------------------------------------------------------------------ */
/* Failures.                                                                                    */

void add_error(error_table *t, const char *key, long count, const char *sample) {
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->kinds[i].key, key) == 0) {
            t->kinds[i].count += count;
            return;
        }
    if (t->n == MAX_ERROR_KINDS) return;
    error_kind *k = &t->kinds[t->n++];
    snprintf(k->key, sizeof k->key, "%s", key);
    k->count = count;
    snprintf(k->sample, sizeof k->sample, "%s", sample ? sample : "");
}

void record_error(error_table *t, const char *where, int status, const char *out_json) {
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
    char key[80];
    snprintf(key, sizeof key, "%s:%s(%d)", where, code, status);
    add_error(t, key, 1, out_json);
}

void set_errors_json(json_t *obj, const error_table *t) {
    json_t *errors = json_object();
    json_t *samples = json_object();
    for (int i = 0; i < t->n; i++) {
        const error_kind *k = &t->kinds[i];
        json_object_set_new(errors, k->key, json_integer(k->count));
        json_t *str = json_string(k->sample); /* NULL if truncation split a UTF-8 sequence */
        json_object_set_new(samples, k->key, str ? str : json_string("(not shown: not UTF-8)"));
    }
    json_object_set_new(obj, "errors", errors);
    if (json_object_size(samples)) json_object_set_new(obj, "errorSamples", samples);
    else json_decref(samples);
}

/* ------------------------------------------------------------------------------------------ */
/* The SMS mailbox: codes posted by the delivery thread, taken by the flow waiting for them.    */

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

int sms_sender(void *ctx, const char *message_json) {
    (void)ctx;
    uint64_t t = now_ns();
    json_error_t jerr;
    json_t *msg = json_loads(message_json, 0, &jerr);
    const char *vid = msg ? json_string_value(json_object_get(msg, "verificationId")) : NULL;
    const char *body = msg ? json_string_value(json_object_get(msg, "body")) : NULL;
    char code[16] = "";
    for (const char *p = body; p && *p;) { /* the first run of 6 to 10 digits in the body is the code */
        size_t n = strspn(p, "0123456789");
        if (n >= 6 && n <= 10) {
            memcpy(code, p, n);
            code[n] = 0;
            break;
        }
        p += n ? n : 1;
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

void mailbox_counts(long *delivered, long *unparsable, long *pending) {
    pthread_mutex_lock(&box.lock);
    *delivered = box.delivered;
    *unparsable = box.unparsable;
    *pending = box.pending;
    pthread_mutex_unlock(&box.lock);
}

void clear_mailbox(void) {
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
/* The flow.                                                                                    */

json_t *storage_statistics(phoneauth_engine *e) {
    char *out = NULL;
    if (phoneauth_call(e, "getStorageStatistics", "{}", &out) != PHONEAUTH_OK) {
        fprintf(stderr, "getStorageStatistics failed: %s\n", out ? out : "");
        exit(1);
    }
    json_error_t jerr;
    json_t *o = json_loads(out, 0, &jerr);
    phoneauth_free(out);
    if (!o) die("getStorageStatistics returned no JSON");
    return o;
}

phoneauth_engine *open_engine_json(json_t *config) {
    char *cfg = json_dumps(config, JSON_COMPACT);
    json_decref(config);
    char *err = NULL;
    phoneauth_engine *e = phoneauth_open(cfg, &err);
    free(cfg);
    if (!e) {
        fprintf(stderr, "%s: phoneauth_open failed: %s\n", bench_name, err ? err : "(no error)");
        phoneauth_free(err);
        exit(1);
    }
    if (phoneauth_set_sms_sender(e, sms_sender, NULL) != PHONEAUTH_OK) die("phoneauth_set_sms_sender failed");
    if (flow_tenant()) {
        char params[160], *out = NULL;
        snprintf(params, sizeof params, "{\"tenantId\":\"%s\",\"displayName\":\"Bench\"}", flow_tenant());
        int rc = phoneauth_call(e, "createTenant", params, &out);
        /* A second engine on the same store finds it made (its ID is taken). */
        if (rc != PHONEAUTH_OK && !strstr(out ? out : "", "tenantExists")) die("createTenant failed");
        phoneauth_free(out);
    }
    return e;
}

/* BENCH_TENANT=1: the flows run in a tenant ("bench-tenant"), to compare with the default pool. */
const char *flow_tenant(void) {
    const char *v = getenv("BENCH_TENANT");
    return v && strcmp(v, "1") == 0 ? "bench-tenant" : NULL;
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

int signin_flow(phoneauth_engine *engine, long i, error_table *errors, flow_times *t) {
    char params[512], vid[256], code[16], phone[32];
    phone_number(i, phone, sizeof phone);
    const char *tenant = flow_tenant();
    if (tenant) {
        snprintf(params, sizeof params, "{\"phoneNumber\":\"%s\",\"tenantId\":\"%s\"}", phone, tenant);
    } else {
        snprintf(params, sizeof params, "{\"phoneNumber\":\"%s\"}", phone);
    }

    char *out = NULL;
    t->start = now_ns();
    int rc = phoneauth_verify_phone_number(engine, params, &out);
    t->verified = now_ns();
    if (rc != PHONEAUTH_OK || extract_vid(out, vid, sizeof vid) != 0) {
        record_error(errors, "verifyPhoneNumber", rc, out);
        phoneauth_free(out);
        return FLOW_FAILED;
    }
    phoneauth_free(out);

    if (take_code(vid, code, &t->delivered) != 0) {
        record_error(errors, "smsWait", -1, "{\"error\":{\"code\":\"timeout\"}}");
        return FLOW_NO_SMS;
    }
    t->code = now_ns();

    /* The usual vid is plain text: print it straight in rather than building a JSON object. */
    if (json_plain(vid)) {
        snprintf(params, sizeof params, "{\"verificationId\":\"%s\",\"verificationCode\":\"%s\"}", vid, code);
    } else {
        json_t *o = json_pack("{s:s,s:s}", "verificationId", vid, "verificationCode", code);
        char *s = json_dumps(o, JSON_COMPACT);
        snprintf(params, sizeof params, "%s", s);
        free(s);
        json_decref(o);
    }
    rc = phoneauth_credential(engine, params, &out);
    t->credential = now_ns();
    if (rc != PHONEAUTH_OK) {
        record_error(errors, "credential", rc, out);
        phoneauth_free(out);
        return FLOW_FAILED;
    }
    /* credential's result, {"credential": {...}}, is exactly signInWithCredential's params (with
     * the tenant's ID added before its closing brace). */
    char *signed_in = NULL;
    char scoped[1024];
    if (tenant && strlen(out) < sizeof scoped - 64) {
        snprintf(scoped, sizeof scoped, "%.*s,\"tenantId\":\"%s\"}", (int)strlen(out) - 1, out, tenant);
        rc = phoneauth_sign_in_with_credential(engine, scoped, &signed_in);
    } else {
        rc = phoneauth_sign_in_with_credential(engine, out, &signed_in);
    }
    t->signed_in = now_ns();
    phoneauth_free(out);
    if (rc != PHONEAUTH_OK) {
        record_error(errors, "signInWithCredential", rc, signed_in);
        phoneauth_free(signed_in);
        return FLOW_FAILED;
    }
    t->new_user = is_new_user(signed_in);
    phoneauth_free(signed_in);
    return FLOW_OK;
}
