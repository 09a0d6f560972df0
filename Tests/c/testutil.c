/* testutil.c: see testutil.h. */
#include "testutil.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <libpq-fe.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- assertions ---------------------------------------------------------------------------- */

static int g_passed, g_failed;
static pthread_mutex_t g_print_mu = PTHREAD_MUTEX_INITIALIZER;

int tu_check(int ok, const char *file, int line, const char *expr, const char *fmt, ...) {
    if (ok) {
        __atomic_add_fetch(&g_passed, 1, __ATOMIC_SEQ_CST);
        return 1;
    }
    __atomic_add_fetch(&g_failed, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&g_print_mu);
    fprintf(stdout, "FAIL %s:%d: %s", file, line, expr);
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs(" -- ", stdout);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stdout);
    fflush(stdout);
    pthread_mutex_unlock(&g_print_mu);
    return 0;
}

int tu_failures(void) { return __atomic_load_n(&g_failed, __ATOMIC_SEQ_CST); }

int tu_finish(void) {
    int passed = __atomic_load_n(&g_passed, __ATOMIC_SEQ_CST);
    int failed = __atomic_load_n(&g_failed, __ATOMIC_SEQ_CST);
    if (passed + failed == 0) {
        printf("no check ran\n");
        failed = 1;
    }
    printf("%d passed, %d failed\n", passed, failed);
    fflush(stdout);
    return failed ? 1 : 0;
}

int tu_timeout_ms(int base_ms) {
    const char *s = getenv("PHONEAUTH_TEST_TIMEOUT_SCALE");
    int scale = s ? atoi(s) : 1;
    if (scale < 1) scale = 1;
    return base_ms * scale;
}

int tu_memcheck(void) {
    const char *s = getenv("PHONEAUTH_TEST_MEMCHECK");
    return s && *s && strcmp(s, "0") != 0;
}

void tu_sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A deadline ms from now on CLOCK_MONOTONIC (the clock of every condition variable here). */
void tu_deadline_after(struct timespec *ts, int ms) {
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

void tu_init_monotonic_cond(pthread_cond_t *cv) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

/* ---- marked threads ---------------------------------------------------------------------------- */

static struct {
    pthread_once_t once;
    pthread_key_t key; /* set on a marked thread: its destructor runs when the thread ends */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ended;
} g_marks = {PTHREAD_ONCE_INIT, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};

static void marked_thread_ended(void *value) {
    (void)value;
    pthread_mutex_lock(&g_marks.mu);
    g_marks.ended++;
    pthread_cond_broadcast(&g_marks.cv);
    pthread_mutex_unlock(&g_marks.mu);
}

static void marks_init(void) {
    pthread_key_create(&g_marks.key, marked_thread_ended);
    tu_init_monotonic_cond(&g_marks.cv);
}

void tu_mark_thread(void) {
    pthread_once(&g_marks.once, marks_init);
    if (!pthread_getspecific(g_marks.key)) pthread_setspecific(g_marks.key, &g_marks);
}

int tu_marked_ended(void) { return tu_wait_marked_ended(0, 0); }

int tu_wait_marked_ended(int n, int timeout_ms) {
    pthread_once(&g_marks.once, marks_init);
    struct timespec deadline;
    tu_deadline_after(&deadline, timeout_ms);
    pthread_mutex_lock(&g_marks.mu);
    while (g_marks.ended < n && pthread_cond_timedwait(&g_marks.cv, &g_marks.mu, &deadline) == 0) {
    }
    int ended = g_marks.ended;
    pthread_mutex_unlock(&g_marks.mu);
    return ended;
}

/* ---- scratch folders and engines ------------------------------------------------------------ */

char *tu_tmpdir(void) {
    char *path = strdup("/tmp/phoneauth-ctest-XXXXXX");
    if (!path || !mkdtemp(path)) {
        perror("mkdtemp");
        exit(2);
    }
    return path;
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
    (void)sb;
    (void)type;
    (void)ftw;
    if (remove(path) != 0) perror(path);
    return 0;
}

static void drop_schemas_under(const char *path);

void tu_rmtree(const char *path) {
    if (!path) return;
    drop_schemas_under(path);
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the database: SQLite files or PostgreSQL schemas ---------------------------------------- */

/* A fixed master key for PostgreSQL runs (SQLite runs keep the key file beside the database). */
#define TU_PG_MASTER_KEY "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e"

int tu_postgres(void) {
    const char *s = getenv("PHONEAUTH_TEST_DATABASE");
    return s && strcmp(s, "postgres") == 0;
}

static const char *pg_url(void) {
    const char *url = getenv("PHONEAUTH_TEST_POSTGRES_URL");
    if (!url || !*url) {
        fprintf(stderr, "PHONEAUTH_TEST_DATABASE=postgres needs PHONEAUTH_TEST_POSTGRES_URL "
                        "(source the env file of Tests/pg/cluster.sh start)\n");
        exit(2);
    }
    return url;
}

/* Appends the lower-case letters and digits of s (others become _) to out, at most max chars. */
static void append_sanitised(char *out, size_t size, const char *s, size_t max) {
    size_t n = strlen(out);
    for (size_t i = 0; s[i] && max > 0 && n + 1 < size; i++, max--) {
        unsigned char c = (unsigned char)s[i];
        out[n++] = isalnum(c) && c < 128 ? (char)tolower(c) : '_';
    }
    out[n] = 0;
}

/* "c_<mkdtemp suffix>_<name>_<hash of the path>": readable, and unique because of the hash
 * (the suffix is mixed-case, so lower-casing it alone could make two folders meet). */
const char *tu_schema_for(const char *db) {
    static __thread char out[64];
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)db; *p; p++) h = (h ^ *p) * 16777619u;
    const char *slash = strrchr(db, '/');
    const char *file = slash ? slash + 1 : db;
    char name[64] = "", folder[64] = "";
    size_t flen = strcspn(file, ".");
    snprintf(name, sizeof name, "%.*s", (int)(flen < 40 ? flen : 40), file);
    if (slash) {
        const char *start = slash;
        while (start > db && start[-1] != '/') start--;
        const char *dash = memrchr(start, '-', (size_t)(slash - start));
        if (dash) start = dash + 1;
        snprintf(folder, sizeof folder, "%.*s", (int)((slash - start) < 12 ? (slash - start) : 12), start);
    }
    snprintf(out, sizeof out, "c_");
    append_sanitised(out, sizeof out, folder, 12);
    snprintf(out + strlen(out), sizeof out - strlen(out), "_");
    append_sanitised(out, sizeof out, name, 30);
    snprintf(out + strlen(out), sizeof out - strlen(out), "_%08x", h);
    return out;
}

/* The database paths this process pointed an engine at on PostgreSQL, for tu_rmtree. */
static pthread_mutex_t g_db_mu = PTHREAD_MUTEX_INITIALIZER;
static char **g_dbs;
static size_t g_ndbs;

static void remember_db(const char *db) {
    pthread_mutex_lock(&g_db_mu);
    int known = 0;
    for (size_t i = 0; i < g_ndbs && !known; i++) known = strcmp(g_dbs[i], db) == 0;
    if (!known) {
        char **grown = realloc(g_dbs, (g_ndbs + 1) * sizeof *grown);
        if (grown) {
            g_dbs = grown;
            g_dbs[g_ndbs] = strdup(db);
            if (g_dbs[g_ndbs]) g_ndbs++;
        }
    }
    pthread_mutex_unlock(&g_db_mu);
}

void tu_set_database(json_t *config, const char *db) {
    if (!tu_postgres()) {
        json_object_set_new(config, "database", json_string(db));
        return;
    }
    json_object_set_new(config, "database", json_string(pg_url()));
    json_t *pg = json_object_get(config, "postgres");
    if (!json_is_object(pg)) {
        pg = json_object();
        json_object_set_new(config, "postgres", pg);
    }
    if (!json_object_get(pg, "schema")) json_object_set_new(pg, "schema", json_string(tu_schema_for(db)));
    if (!json_object_get(config, "masterKey"))
        json_object_set_new(config, "masterKey", json_string(TU_PG_MASTER_KEY));
    remember_db(db);
}

static PGconn *pg_connect(void) {
    PGconn *c = PQconnectdb(pg_url());
    if (PQstatus(c) != CONNECTION_OK) {
        tu_check(0, __FILE__, __LINE__, "connect to PHONEAUTH_TEST_POSTGRES_URL", "%s",
                 PQerrorMessage(c));
        PQfinish(c);
        return NULL;
    }
    return c;
}

static void drop_schemas_under(const char *path) {
    if (!tu_postgres()) return;
    size_t plen = strlen(path);
    PGconn *c = NULL;
    pthread_mutex_lock(&g_db_mu);
    for (size_t i = 0; i < g_ndbs;) {
        if (strncmp(g_dbs[i], path, plen) != 0 || g_dbs[i][plen] != '/') {
            i++;
            continue;
        }
        if (!c && (c = pg_connect()) != NULL) {
            /* an engine left open (after a failure) must not make the run hang here */
            PQclear(PQexec(c, "SET lock_timeout = '5s'; SET client_min_messages = warning"));
        }
        if (c) {
            char sql[160];
            snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE", tu_schema_for(g_dbs[i]));
            PGresult *r = PQexec(c, sql);
            if (PQresultStatus(r) != PGRES_COMMAND_OK)
                fprintf(stderr, "note: %s: %s", sql, PQerrorMessage(c));
            PQclear(r);
        }
        free(g_dbs[i]);
        g_dbs[i] = g_dbs[--g_ndbs];
    }
    pthread_mutex_unlock(&g_db_mu);
    PQfinish(c);
}

/* Every value of every table of the schema of db, in binary form, searched for needle. A schema
 * without tables is a failed check: the search would prove nothing. */
static int pg_db_contains(const char *db, const char *needle) {
    const char *schema = tu_schema_for(db);
    char schema_copy[64];
    snprintf(schema_copy, sizeof schema_copy, "%s", schema);
    PGconn *c = pg_connect();
    if (!c) return 0;
    size_t nl = strlen(needle);
    int found = 0;
    const char *params[1] = {schema_copy};
    PGresult *tables = PQexecParams(c,
        "SELECT quote_ident(table_name) FROM information_schema.tables "
        "WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY table_name",
        1, NULL, params, NULL, NULL, 0);
    if (PQresultStatus(tables) != PGRES_TUPLES_OK) {
        tu_check(0, __FILE__, __LINE__, "list the tables of the schema", "%s: %s", schema_copy,
                 PQerrorMessage(c));
    } else if (PQntuples(tables) == 0) {
        tu_check(0, __FILE__, __LINE__, "the schema has tables", "schema %s of %s has none",
                 schema_copy, db);
    }
    for (int t = 0; PQresultStatus(tables) == PGRES_TUPLES_OK && t < PQntuples(tables) && !found; t++) {
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT * FROM %s.%s", schema_copy, PQgetvalue(tables, t, 0));
        /* resultFormat 1: every value as stored (bytea raw, not hex-escaped) */
        PGresult *rows = PQexecParams(c, sql, 0, NULL, NULL, NULL, NULL, 1);
        if (PQresultStatus(rows) != PGRES_TUPLES_OK) {
            tu_check(0, __FILE__, __LINE__, "read a table", "%s: %s", sql, PQerrorMessage(c));
        } else {
            for (int r = 0; r < PQntuples(rows) && !found; r++)
                for (int f = 0; f < PQnfields(rows) && !found; f++) {
                    if (PQgetisnull(rows, r, f)) continue;
                    size_t len = (size_t)PQgetlength(rows, r, f);
                    found = len >= nl && memmem(PQgetvalue(rows, r, f), len, needle, nl) != NULL;
                }
        }
        PQclear(rows);
    }
    PQclear(tables);
    PQfinish(c);
    return found;
}

phoneauth_engine *tu_open(const char *dir, const char *name, const char *extra_config) {
    char db[4096];
    snprintf(db, sizeof db, "%s/%s.db", dir, name);
    /* The pumping defense, on by default, has tests of its own (Swift, Python, phoneauthd); here it
     * would refuse the many codes these tests send to +1 650 555 and never enter. */
    json_t *config = json_pack("{s:i, s:{s:s}}", "resendAfterSeconds", 0, "pumping", "mode", "off");
    if (extra_config) {
        json_error_t jerr;
        json_t *extra = json_loads(extra_config, 0, &jerr);
        if (!CHECKF(json_is_object(extra), "test bug: extra config is not an object: %s", jerr.text)) {
            json_decref(config);
            json_decref(extra);
            return NULL;
        }
        json_object_update(config, extra);
        json_decref(extra);
    }
    tu_set_database(config, db);
    char *text = json_dumps(config, JSON_COMPACT);
    json_decref(config);
    char *err = NULL;
    phoneauth_engine *e = phoneauth_open(text, &err);
    CHECKF(e != NULL, "phoneauth_open(%s) failed: %s", text, err ? err : "(no error_json)");
    if (e) CHECKF(err == NULL, "phoneauth_open succeeded but set error_json: %s", err);
    phoneauth_free(err);
    free(text);
    return e;
}

/* ---- calls ---------------------------------------------------------------------------------- */

json_t *tu_parse_out_at(const char *file, int line, int status, char *out) {
    if (out == NULL) {
        tu_check(0, file, line, "out_json != NULL", "status %d", status);
        return NULL;
    }
    json_error_t jerr;
    json_t *res = json_loads(out, 0, &jerr);
    /* The shape checks below count only when they fail, so that polling loops do not inflate
     * the number of passed checks. */
    if (!json_is_object(res)) {
        tu_check(0, file, line, "output is a JSON object", "%s (%s)", out,
                 res ? "not an object" : jerr.text);
        json_decref(res);
        phoneauth_free(out);
        return NULL;
    }
    json_t *error = json_object_get(res, "error");
    if (status == PHONEAUTH_OK) {
        if (error != NULL) tu_check(0, file, line, "success output has no \"error\"", "%s", out);
    } else {
        json_t *code = json_object_get(error, "code");
        json_t *st = json_object_get(error, "status");
        json_t *msg = json_object_get(error, "message");
        json_t *details = json_object_get(error, "details");
        const char *se = phoneauth_strerror(status);
        int shape_ok = json_is_object(error) && json_is_string(code) &&
                       json_string_length(code) > 0 && json_is_integer(st) &&
                       json_integer_value(st) == status && json_is_string(msg) &&
                       json_is_object(details) && se != NULL;
        if (!shape_ok)
            tu_check(0, file, line, "error object {code, status == return, message, details{}}",
                 "returned %d, output %s, strerror %s", status, out, se ? se : "NULL");
    }
    phoneauth_free(out);
    return res;
}

json_t *tu_call_at(const char *file, int line, phoneauth_engine *e, const char *method,
                   const char *params, int *status) {
    char *out = NULL;
    int st = phoneauth_call(e, method, params, &out);
    if (status) *status = st;
    return tu_parse_out_at(file, line, st, out);
}

json_t *tu_callj_at(const char *file, int line, phoneauth_engine *e, const char *method,
                    json_t *params, int *status) {
    char *text = params ? json_dumps(params, JSON_COMPACT) : NULL;
    json_decref(params);
    json_t *res = tu_call_at(file, line, e, method, text, status);
    free(text);
    return res;
}

int tu_expect_err(const char *file, int line, json_t *res, int status, int want_status,
                  const char *want_code) {
    const char *code = tu_str(res, "error.code");
    return tu_check(status == want_status && code && strcmp(code, want_code) == 0, file, line,
                    "expected error", "want %d %s, got %d %s", want_status, want_code, status,
                    tu_dump(res));
}

int tu_expect_ok(const char *file, int line, json_t *res, int status) {
    return tu_check(status == PHONEAUTH_OK && res != NULL, file, line, "expected success",
                    "got %d %s", status, tu_dump(res));
}

json_t *tu_get(json_t *root, const char *path) {
    char key[256];
    json_t *cur = root;
    const char *p = path;
    while (cur && *p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        if (n >= sizeof key) return NULL;
        memcpy(key, p, n);
        key[n] = 0;
        cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
        p += n + (dot ? 1 : 0);
    }
    return cur;
}

const char *tu_str(json_t *root, const char *path) {
    json_t *v = tu_get(root, path);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

long long tu_int(json_t *root, const char *path, long long dflt) {
    json_t *v = tu_get(root, path);
    return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

int tu_bool(json_t *root, const char *path) {
    json_t *v = tu_get(root, path);
    return json_is_boolean(v) ? json_is_true(v) : -1;
}

const char *tu_errmsg(json_t *res) {
    const char *m = tu_str(res, "error.message");
    return m ? m : "";
}

const char *tu_dump(json_t *v) {
    static __thread char buf[2048];
    if (!v) return "(null)";
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    snprintf(buf, sizeof buf, "%s", s ? s : "(unprintable)");
    free(s);
    return buf;
}

/* ---- SMS capture ---------------------------------------------------------------------------- */

void tu_sms_init(tu_sms *s, const char *tag) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    tu_init_monotonic_cond(&s->cv);
    s->messages = json_array();
    s->creator = pthread_self();
    s->tag = tag;
}

void tu_sms_destroy(tu_sms *s) {
    json_decref(s->messages);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
}

int tu_sms_sender(void *ctx, const char *message_json) {
    tu_sms *s = ctx;
    int overlapped = __atomic_add_fetch(&s->inflight, 1, __ATOMIC_SEQ_CST) > 1;
    json_t *msg = message_json ? json_loads(message_json, 0, NULL) : NULL;
    pthread_mutex_lock(&s->mu);
    s->calls++;
    if (overlapped) s->overlapped = 1;
    if (pthread_equal(pthread_self(), s->creator)) s->on_caller_thread = 1;
    if (json_is_object(msg)) {
        if (s->tag) json_object_set_new(msg, "_tag", json_string(s->tag));
        json_array_append(s->messages, msg);
    } else {
        s->bad_messages++;
    }
    int rc = 0;
    if (s->fail_next > 0) {
        s->fail_next--;
        rc = 1;
    }
    int delay = s->delay_ms, hold = s->hold_until;
    pthread_cond_broadcast(&s->cv);
    /* Our reference goes under the lock: a waiter may be handed this message and drop its own
     * reference at once, and jansson's json_decref reads the count without an atomic first. */
    json_decref(msg);
    pthread_mutex_unlock(&s->mu);
    if (delay > 0) tu_sleep_ms(delay);
    if (hold > 0)
        CHECKF(tu_wait_marked_ended(hold, tu_timeout_ms(10000)) >= hold, "an SMS callback held until a close began, "
               "and no close began");
    __atomic_sub_fetch(&s->inflight, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&s->mu);
    s->returned++;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static json_t *find_message(tu_sms *s, const char *vid) {
    size_t i;
    json_t *m;
    json_array_foreach(s->messages, i, m) {
        const char *v = tu_str(m, "verificationId");
        if (v && vid && strcmp(v, vid) == 0) return m;
    }
    return NULL;
}

json_t *tu_sms_wait(tu_sms *s, const char *verification_id, int timeout_ms) {
    struct timespec deadline;
    tu_deadline_after(&deadline, timeout_ms);
    pthread_mutex_lock(&s->mu);
    json_t *m;
    while ((m = find_message(s, verification_id)) == NULL) {
        if (pthread_cond_timedwait(&s->cv, &s->mu, &deadline) == ETIMEDOUT) {
            m = find_message(s, verification_id);
            break;
        }
    }
    json_incref(m);
    pthread_mutex_unlock(&s->mu);
    return m;
}

int tu_sms_wait_calls(tu_sms *s, int n, int timeout_ms) {
    struct timespec deadline;
    tu_deadline_after(&deadline, timeout_ms);
    pthread_mutex_lock(&s->mu);
    while (s->calls < n) {
        if (pthread_cond_timedwait(&s->cv, &s->mu, &deadline) == ETIMEDOUT) break;
    }
    int calls = s->calls;
    pthread_mutex_unlock(&s->mu);
    return calls;
}

int tu_sms_calls(tu_sms *s) {
    pthread_mutex_lock(&s->mu);
    int calls = s->calls;
    pthread_mutex_unlock(&s->mu);
    return calls;
}

void tu_sms_fail_next(tu_sms *s, int n) {
    pthread_mutex_lock(&s->mu);
    s->fail_next = n;
    pthread_mutex_unlock(&s->mu);
}

void tu_sms_set_delay(tu_sms *s, int ms) {
    pthread_mutex_lock(&s->mu);
    s->delay_ms = ms;
    pthread_mutex_unlock(&s->mu);
}

void tu_sms_hold_until_close(tu_sms *s) {
    pthread_mutex_lock(&s->mu);
    s->hold_until = tu_marked_ended() + 1;
    pthread_mutex_unlock(&s->mu);
}

int tu_sms_returned(tu_sms *s) {
    pthread_mutex_lock(&s->mu);
    int n = s->returned;
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* ---- codeSent events ------------------------------------------------------------------------ */

void tu_sent_init(tu_sent *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    tu_init_monotonic_cond(&s->cv);
}

void tu_sent_destroy(tu_sent *s) {
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
}

void tu_sent_sink(void *ctx, const char *event_json) {
    tu_sent *s = ctx;
    json_t *e = json_loads(event_json ? event_json : "", 0, NULL);
    const char *name = tu_str(e, "event");
    if (name && strcmp(name, "codeSent") == 0) {
        tu_mark_thread();
        pthread_mutex_lock(&s->mu);
        s->sent++;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    json_decref(e);
}

int tu_sent_wait(tu_sent *s, int n, int timeout_ms) {
    struct timespec deadline;
    tu_deadline_after(&deadline, timeout_ms);
    pthread_mutex_lock(&s->mu);
    while (s->sent < n && pthread_cond_timedwait(&s->cv, &s->mu, &deadline) == 0) {
    }
    int sent = s->sent;
    pthread_mutex_unlock(&s->mu);
    return sent;
}

int tu_extract_code(const char *body, int len, char *out) {
    if (!body) return 0;
    const char *p = body;
    while (*p) {
        if (*p >= '0' && *p <= '9') {
            const char *start = p;
            while (*p >= '0' && *p <= '9') p++;
            if (p - start == len) {
                memcpy(out, start, (size_t)len);
                out[len] = 0;
                return 1;
            }
        } else {
            p++;
        }
    }
    return 0;
}

/* ---- whole flows ---------------------------------------------------------------------------- */

json_t *tu_sms_credential(phoneauth_engine *e, tu_sms *s, const char *phone, char **vid_out) {
    int st;
    json_t *v = tu_callj(e, "verifyPhoneNumber", json_pack("{s:s}", "phoneNumber", phone), &st);
    if (!EXPECT_OK(v, st)) {
        json_decref(v);
        return NULL;
    }
    const char *vid = tu_str(v, "verificationId");
    long long len = tu_int(v, "codeLength", -1);
    if (!CHECKF(vid && *vid && len >= 6 && len <= 10, "%s", tu_dump(v))) {
        json_decref(v);
        return NULL;
    }
    json_t *msg = tu_sms_wait(s, vid, tu_timeout_ms(15000));
    char code[16] = "";
    const char *body = tu_str(msg, "body");
    int found = CHECKF(msg != NULL, "no SMS for %s within the timeout", phone) &&
                CHECKF(tu_extract_code(body, (int)len, code), "no %lld-digit code in %s", len,
                       body ? body : "(no body)");
    json_t *cred = NULL;
    if (found) {
        json_t *c = tu_callj(e, "credential",
                             json_pack("{s:s, s:s}", "verificationId", vid, "verificationCode", code),
                             &st);
        if (EXPECT_OK(c, st) && CHECKF(json_is_object(tu_get(c, "credential")), "%s", tu_dump(c))) {
            cred = json_incref(tu_get(c, "credential"));
        }
        json_decref(c);
    }
    if (vid_out) *vid_out = strdup(vid);
    json_decref(msg);
    json_decref(v);
    return cred;
}

json_t *tu_sms_sign_in(phoneauth_engine *e, tu_sms *s, const char *phone) {
    json_t *cred = tu_sms_credential(e, s, phone, NULL);
    if (!cred) return NULL;
    int st;
    json_t *r = tu_callj(e, "signInWithCredential", json_pack("{s:o}", "credential", cred), &st);
    if (!EXPECT_OK(r, st)) {
        json_decref(r);
        return NULL;
    }
    return r;
}

int tu_db_contains(const char *db, const char *needle) {
    if (tu_postgres()) return pg_db_contains(db, needle);
    const char *suffixes[] = {"", "-wal", "-journal"};
    size_t nl = strlen(needle);
    for (size_t i = 0; i < 3; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s", db, suffixes[i]);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *buf = malloc((size_t)n + 1);
        size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
        fclose(f);
        int found = got >= nl && memmem(buf, got, needle, nl) != NULL;
        free(buf);
        if (found) return 1;
    }
    return 0;
}
