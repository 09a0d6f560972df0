/*
 * pg_bench.c: complete phone sign-ins through libphoneauth's C ABI with PostgreSQL as the store,
 * next to the same transactions replayed directly with libpq (the floor), in the same run.
 *
 * The engine
 *   One flow is signin_bench.c's (benchutil.c's signin_flow, shared by both): verifyPhoneNumber (a
 *   new, distinct number) -> the SMS reaches our callback on the engine's delivery thread (the code
 *   is parsed out of the body) -> credential -> signInWithCredential (the user is new). A
 *   configuration is P processes x T threads (by default 1x2, 2x2 and 4x1;
 *   $BENCH_PG_CONFIGS="PxT,..." to choose): P processes are forked, each opens its own engine on
 *   the same fresh schema (same URL, schema and masterKey: shared state) with a pool of
 *   $BENCH_PG_POOL connections (default 4, the engine's default), runs an untimed warm-up on all
 *   its threads, then all start together and their threads run flows back to back, taking flow
 *   numbers from a counter in shared memory, until N flows are done (N = $BENCH_FLOWS_PG, else
 *   $BENCH_FLOWS, else 3000). Reported: flows/s over wall clock (first process's start to last
 *   one's end), flow latency, and from getStorageStatistics of every process (just before and just
 *   after the timed flows) round trips, transactions and retries per flow; also CPU time per flow
 *   of the client processes (all their threads) and, when the server runs on this machine, of the
 *   server (postmaster and all its children, read from /proc).
 *
 * The floor
 *   The same P processes x T threads, each thread on its own libpq connection, plus in each
 *   process one recorder thread on its own connection standing for the engine's delivery
 *   thread, replay the statements the engine sends for a flow, as the server logs them
 *   (log_statement = 'all'), in the same round trips: prepared statements (text parameters,
 *   binary bytea and results); a transaction's start (BEGIN ISOLATION LEVEL SERIALIZABLE, after
 *   the lock of its queue for the sends) in one pipeline with its first statement; COMMIT (and
 *   the queue's unlock) in one pipeline; on a serialization failure, deadlock or unique
 *   violation, ROLLBACK and a new try after a random pause of up to 1 ms << (tries - 1), at most
 *   128 ms, 10 tries at most. It runs on a fresh schema made by the engine's own migrations (same
 *   tables, indexes, constraints) with values shaped like the engine's (IDs that begin with the
 *   time). Left out: cryptography (ES256, HMACs, sealing the SMS body), JSON, number parsing,
 *   the hand-off to the delivery thread and the callback; the ratio engine/floor shows what
 *   those and everything else the engine does cost on top of the database's work. Engine and
 *   floor run in the order engine, floor, floor, engine, half the flows each time, each side on
 *   a schema of its own, so that a change of the machine's load weighs on both alike.
 *
 *   The statements of one flow ($n bound; "+" = in the same round trip as the line above; the
 *   queue is "phoneauth:<schema>:sends"):
 *     verifyPhoneNumber: one transaction, queued, 5 round trips
 *       SELECT pg_advisory_lock(hashtext('<queue>'))
 *       + BEGIN ISOLATION LEVEL SERIALIZABLE
 *       + SELECT the number's latest verification for the purpose (resend window), its lockout and
 *           the 5th latest SMS of the last hour (smsPerNumberPerHour), in one statement
 *       SELECT bucket, count FROM counters WHERE bucket IN ($1, $2) AND scope = $3   (smsPerProjectPerDay)
 *       INSERT INTO verifications (id, phone, code_hash, ..., sealed_body, ...) VALUES ($1, ..., $11)
 *       INSERT INTO counters (bucket, scope, count) VALUES ($1, $2, 1)
 *           ON CONFLICT (bucket, scope) DO UPDATE SET count = counters.count + 1
 *       COMMIT
 *       + SELECT pg_advisory_unlock(hashtext('<queue>'))
 *     delivered, on the delivery thread: the outcomes it has once no new SMS came for 2 ms (at
 *     most 64): one alone is one autocommitted statement, n > 1 one transaction of 1 + n round trips
 *       BEGIN ISOLATION LEVEL READ COMMITTED                                         (n > 1)
 *       + UPDATE verifications SET delivery = 'sent', sealed_body = NULL,
 *           delivery_attempts = delivery_attempts + 1 WHERE id = $1                  (once per message)
 *       COMMIT                                                                       (n > 1)
 *     and, if an SMS was handed over while that thread waited, once its queue is empty, outside
 *     any transaction: SELECT min(due_at) FROM verifications WHERE delivery IN ('pending', 'sending')
 *     signInWithCredential: one transaction, 6 round trips
 *       BEGIN ISOLATION LEVEL SERIALIZABLE
 *       + SELECT v.phone, v.code_hash, v.expires_at, v.attempts, v.state, v.purpose, v.subject,
 *           f.locked_until FROM verifications v LEFT JOIN number_failures f ON f.phone = v.phone
 *           WHERE v.id = $1
 *       SELECT the number's user and whether it is a second factor, in one statement
 *       UPDATE verifications SET state = 'used' WHERE id = $1
 *       INSERT INTO users (uid, phone, created_at, last_sign_in_at) VALUES ($1, $2, $3, $4)
 *       INSERT INTO sessions (id, uid, secret_hash, ...) VALUES ($1, ..., $9)
 *       COMMIT
 *   The floor sends exactly these, reads that find nothing included; its recorder batches and
 *   looks at the store by the same rules as the engine's delivery thread. When the engine
 *   changes its SQL, log a few flows of both (application_name "phoneauth" and "pg_bench_floor")
 *   and bring floor_sql and the *_body functions in line.
 *
 * Output: {"postgres": {"library", "server", "flowsPerConfiguration", "p1t2": {...}, ...}} on
 * stdout, one object per configuration: processes, threads, poolSize, flowsPerSecond,
 * roundTripsPerFlow, retriesPer1000Flows, floorFlowsPerSecond, ratioToFloor, the floor's round
 * trips and retries, then the details of each side ("engine", "floor": flows, failures by
 * error, seconds, transactions per flow, CPU µs per flow, latency percentiles in µs; for the
 * floor also its retries by transaction). Progress goes to stderr.
 * The database is $BENCH_POSTGRES_URL, else $PHONEAUTH_TEST_POSTGRES_URL; with neither it prints
 * {"postgres": {"skipped": "..."}} and exits 0. The schemas it makes (bench_<pid>_...) are dropped.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <libpq-fe.h>
#include <openssl/rand.h>

#include "benchutil.h"
#include "phoneauth.h"

#define MAX_PROCS 8
#define MAX_THREADS 8
#define MAX_SMS_TIMEOUTS 3 /* a process stops after this many flows saw no SMS */
#define WARMUP_FLOWS 40    /* per process, untimed */
#define MAX_TRIES 10       /* a transaction that keeps conflicting fails after this many tries */

const char bench_name[] = "pg_bench";

/* percentiles() of the values that are not zero: a zero is a flow that failed. */
static json_t *latency_percentiles(uint64_t *v, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i]) v[k++] = v[i];
    return percentiles(v, k);
}

/* ------------------------------------------------------------------------------------------ */
/* What the processes share with the parent (an anonymous shared mapping made before fork).     */

/* The floor's transactions, for counting its retries by kind. */
enum { T_VERIFY, T_SIGN_IN, T_DELIVERED, T_COUNT };
static const char *const transaction_names[T_COUNT] = {"verify", "signIn", "delivered"};

typedef struct {
    long ok, failed, not_new_user;
    long transactions, retries, round_trips; /* during the timed flows */
    long retries_by[T_COUNT];                /* the floor's */
    long pool_size;
    uint64_t start_ns, end_ns;
    double cpu_seconds; /* of the whole process (every thread) during the timed flows */
    error_table errors;
} proc_report;

/* Latencies of a flow: the whole flow; verifyPhoneNumber (the floor: its transaction); the wait
 * for the SMS (the engine only); credential + signInWithCredential (the floor: its transaction). */
enum { L_FLOW, L_VERIFY, L_SMS_WAIT, L_SIGN_IN, L_COUNT };
static const char *const latency_names[L_COUNT] = {"flow", "verify", "smsWait", "signIn"};

typedef struct {
    long next_index; /* the next flow to run, taken atomically by every thread of every process */
    long end_index;
    proc_report procs[MAX_PROCS];
    /* Row mode * flows + i: flow i of the engine (mode 0) or of the floor (mode 1); zeros when
     * the flow failed. */
    uint64_t latency_ns[][L_COUNT];
} shared_area;

static shared_area *shared;

/* What every process of a run needs to know. */
typedef struct {
    const char *url;
    char schema[64];
    const char *master_key;
    int pool_size;
    int processes, threads;
    long flows;
    pid_t postmaster; /* 0 when the server is not on this machine */
    long warmup_base; /* the warm-up's numbers: warmup_base + 1000 * process + k */
} run_spec;

/* ------------------------------------------------------------------------------------------ */
/* Engine side: the flow driver (the flow and the SMS mailbox, one per process: benchutil.c).  */

static long sms_timeouts; /* this process */

typedef struct {
    phoneauth_engine *engine; /* engine side */
    PGconn *conn;             /* floor side */
    long *next_index;         /* where flow numbers come from */
    long end_index;
    int timed;  /* record latencies in the shared area */
    long flows; /* of the configuration (rows of each side in the shared area) */
    uint64_t lat[L_COUNT];
    long ok, failed, not_new_user;
    long transactions, retries, round_trips; /* floor side: counted here */
    long retries_by[T_COUNT];
    int begin_pending; /* floor side: the transaction's start goes with the next statement */
    int queued;        /* floor side: the transaction waits for its queue's lock */
    int read_committed; /* floor side: the outbox's bookkeeping runs at READ COMMITTED, as the engine's */
    error_table errors;
} worker;

/* One complete flow through the C ABI (benchutil's signin_flow) for flow number i; 0 when it
 * signed in. */
static int engine_flow(worker *w, long i) {
    flow_times t;
    int rc = signin_flow(w->engine, i, &w->errors, &t);
    if (rc == FLOW_NO_SMS && __atomic_add_fetch(&sms_timeouts, 1, __ATOMIC_RELAXED) >= MAX_SMS_TIMEOUTS) {
        fprintf(stderr, "pg_bench: no SMS within %d s for %d flows: this process stops\n", SMS_TIMEOUT_SECONDS,
                MAX_SMS_TIMEOUTS);
        __atomic_store_n(w->next_index, w->end_index, __ATOMIC_RELAXED);
    }
    if (rc != FLOW_OK) return -1;
    w->lat[L_VERIFY] = t.verified - t.start;
    w->lat[L_SMS_WAIT] = t.code - t.verified;
    w->lat[L_SIGN_IN] = t.signed_in - t.code;
    if (!t.new_user) w->not_new_user++;
    return 0;
}

/* getStorageStatistics: transactions, retries, round trips and the pool size. */
static void engine_statistics(phoneauth_engine *e, long *tx, long *retries, long *trips, long *pool) {
    json_t *o = storage_statistics(e);
    *tx = (long)json_integer_value(json_object_get(o, "transactions"));
    *retries = (long)json_integer_value(json_object_get(o, "retries"));
    *trips = (long)json_integer_value(json_object_get(o, "roundTrips"));
    *pool = (long)json_integer_value(json_object_get(o, "poolSize"));
    json_decref(o);
}

static phoneauth_engine *open_engine(const run_spec *spec) {
    /* More flows than the default daily project quota: raise it (its counting still runs). */
    return open_engine_json(json_pack("{s:s,s:s,s:{s:s,s:i},s:{s:i}}", "database", spec->url, "masterKey",
                                      spec->master_key, "postgres", "schema", spec->schema, "poolSize",
                                      spec->pool_size, "quotas", "smsPerProjectPerDay", 100000000));
}

/* ------------------------------------------------------------------------------------------ */
/* Floor side: the flow's statements over libpq.                                                */

/* The statements of one flow, exactly as the engine sends them (its `?` placeholders numbered). */
enum {
    /* verify */
    S_SEND_STATE, S_COUNTERS, S_INSERT_VERIFICATION, S_BUMP,
    /* delivered, and the delivery thread's look at the store */
    S_SENT, S_NEXT_DUE,
    /* sign-in */
    S_VERIFICATION, S_NUMBER_HOLDER, S_USED, S_INSERT_USER, S_INSERT_SESSION,
    S_COUNT
};

static const char *const floor_sql[S_COUNT] = {
    [S_SEND_STATE] = "SELECT v.id, v.created_at, v.expires_at, v.state,\n"
                     " (SELECT locked_until FROM number_failures WHERE phone = $1),\n"
                     " (SELECT created_at FROM verifications WHERE phone = $2 AND created_at > $3 AND delivery != 'none'\n"
                     " ORDER BY created_at DESC LIMIT 1 OFFSET $4)\n"
                     "FROM (SELECT 1) AS one\n"
                     "LEFT JOIN verifications v ON v.id = (SELECT id FROM verifications WHERE phone = $5 AND purpose = $6\n"
                     " AND subject IS NOT DISTINCT FROM $7 ORDER BY created_at DESC LIMIT 1)",
    [S_COUNTERS] = "SELECT bucket, count FROM counters WHERE bucket IN ($1, $2) AND scope = $3",
    [S_INSERT_VERIFICATION] = "INSERT INTO verifications (id, phone, code_hash, created_at, expires_at, delivery,"
                              " language_code, sealed_body, due_at, purpose, subject)\n"
                              "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    [S_BUMP] = "INSERT INTO counters (bucket, scope, count) VALUES ($1, $2, 1) ON CONFLICT (bucket, scope)"
               " DO UPDATE SET count = counters.count + 1",
    [S_SENT] = "UPDATE verifications SET delivery = 'sent', sealed_body = NULL, delivery_attempts = delivery_attempts + 1"
               " WHERE id = $1",
    [S_NEXT_DUE] = "SELECT min(due_at) FROM verifications WHERE delivery IN ('pending', 'sending')",
    [S_VERIFICATION] = "SELECT v.phone, v.code_hash, v.expires_at, v.attempts, v.state, v.purpose, v.subject, f.locked_until\n"
                       "FROM verifications v LEFT JOIN number_failures f ON f.phone = v.phone WHERE v.id = $1",
    [S_NUMBER_HOLDER] = "SELECT u.uid, u.phone, u.display_name, u.disabled, u.created_at, u.last_sign_in_at, u.valid_since,"
                        " u.custom_claims,\n CASE WHEN EXISTS (SELECT 1 FROM factors WHERE phone = $1) THEN 1 ELSE 0 END\n"
                        "FROM (SELECT 1) AS one LEFT JOIN users u ON u.phone = $2",
    [S_USED] = "UPDATE verifications SET state = 'used' WHERE id = $1",
    [S_INSERT_USER] = "INSERT INTO users (uid, phone, created_at, last_sign_in_at) VALUES ($1, $2, $3, $4)",
    [S_INSERT_SESSION] = "INSERT INTO sessions (id, uid, secret_hash, created_at, auth_time, provider, developer_claims,"
                         " second_factor, second_factor_enrollment)\nVALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
};

static void quiet(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

/* A connection as the engine opens one (search_path = the schema), every statement prepared. */
static PGconn *floor_connect(const run_spec *spec) {
    char options[128];
    snprintf(options, sizeof options, "-c search_path=%s", spec->schema);
    const char *keys[] = {"dbname", "options", "application_name", NULL};
    const char *values[] = {spec->url, options, "pg_bench_floor", NULL};
    PGconn *c = PQconnectdbParams(keys, values, 1);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "pg_bench: cannot connect: %s", PQerrorMessage(c));
        exit(1);
    }
    PQsetNoticeProcessor(c, quiet, NULL);
    for (int s = 0; s < S_COUNT; s++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", s);
        PGresult *r = PQprepare(c, name, floor_sql[s], 0, NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            fprintf(stderr, "pg_bench: prepare %s: %s", floor_sql[s], PQerrorMessage(c));
            exit(1);
        }
        PQclear(r);
    }
    return c;
}

/* Parameters of one statement: text (NULL for SQL NULL) or, with a length, binary. */
typedef struct {
    int n;
    const char *values[12];
    int lengths[12];
    int formats[12];
} params;

static void text_param(params *p, const char *s) { p->values[p->n++] = s; }

static void int_param(params *p, char buf[24], long long v) {
    snprintf(buf, 24, "%lld", v);
    text_param(p, buf);
}

static void blob_param(params *p, const unsigned char *b, int length) {
    p->values[p->n] = (const char *)b;
    p->lengths[p->n] = length;
    p->formats[p->n++] = 1;
}

/* One round trip in pipeline mode, as the engine makes those: the parameterless statements
 * `sql[0..n)`, a NULL among them ending a group with a sync, then prepared statement s (if
 * s >= 0) and a last sync. Returns the first error, else the last statement's result. */
static PGresult *pipelined(PGconn *c, const char *const *sql, int n, int s, const params *p) {
    int syncs = 1, ok = PQenterPipelineMode(c);
    for (int i = 0; i < n && ok; i++) {
        if (sql[i]) ok = PQsendQueryParams(c, sql[i], 0, NULL, NULL, NULL, NULL, 0);
        else ok = PQpipelineSync(c), syncs++;
    }
    if (ok && s >= 0) {
        char name[16];
        snprintf(name, sizeof name, "f%d", s);
        ok = PQsendQueryPrepared(c, name, p->n, p->values, p->lengths, p->formats, 1);
    }
    if (!ok || !PQpipelineSync(c)) {
        fprintf(stderr, "pg_bench: floor: pipeline: %s", PQerrorMessage(c));
        exit(1);
    }
    PGresult *last = NULL, *error = NULL;
    while (syncs > 0) {
        PGresult *r = PQgetResult(c);
        if (!r) { /* the end of one statement's results */
            if (PQstatus(c) != CONNECTION_OK) die("floor: the connection broke");
            continue;
        }
        switch (PQresultStatus(r)) {
        case PGRES_PIPELINE_SYNC: syncs--; /* fall through */
        case PGRES_PIPELINE_ABORTED: PQclear(r); break;
        case PGRES_COMMAND_OK:
        case PGRES_TUPLES_OK: PQclear(last), last = r; break;
        default:
            if (error) PQclear(r);
            else error = r;
        }
    }
    if (PQexitPipelineMode(c) != 1) die("floor: could not leave pipeline mode");
    if (error) PQclear(last);
    return error ? error : last;
}

/* The transaction's start while it waits for its first statement, and its end: "BEGIN ...", or
 * for a queued transaction the session lock of its queue first, released after COMMIT or
 * ROLLBACK (each in a group of its own). */
static char queue_lock_sql[160], queue_unlock_sql[160];

static void set_queue(const char *schema) {
    snprintf(queue_lock_sql, sizeof queue_lock_sql, "SELECT pg_advisory_lock(hashtext('phoneauth:%s:sends'))", schema);
    snprintf(queue_unlock_sql, sizeof queue_unlock_sql, "SELECT pg_advisory_unlock(hashtext('phoneauth:%s:sends'))",
             schema);
}

/* One round trip, as the engine makes it: prepared statement s with binary results, sent after
 * the transaction's start (BEGIN, after taking the queue's lock) when that is pending; or with
 * s < 0, `sql` (COMMIT or ROLLBACK: then the queue's lock is released in the same round trip).
 * Returns 0, or -1 with the SQLSTATE in `state`. */
static int floor_send(worker *w, int s, const char *sql, const params *p, int expect_rows, char state[6]) {
    w->round_trips++;
    PGresult *r;
    if (s < 0) {
        const char *end[] = {sql, NULL, queue_unlock_sql};
        r = pipelined(w->conn, end, w->queued ? 3 : 1, -1, NULL);
    } else if (w->begin_pending) {
        const char *start[] = {queue_lock_sql, NULL,
                               w->read_committed ? "BEGIN ISOLATION LEVEL READ COMMITTED" : "BEGIN ISOLATION LEVEL SERIALIZABLE"};
        r = w->queued ? pipelined(w->conn, start, 3, s, p) : pipelined(w->conn, start + 2, 1, s, p);
        w->begin_pending = 0;
    } else {
        char name[16];
        snprintf(name, sizeof name, "f%d", s);
        r = PQexecPrepared(w->conn, name, p->n, p->values, p->lengths, p->formats, 1);
    }
    ExecStatusType st = PQresultStatus(r);
    int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (ok && s >= 0 && expect_rows >= 0 && PQntuples(r) != expect_rows) {
        fprintf(stderr, "pg_bench: floor: %s returned %d rows, not %d\n", floor_sql[s], PQntuples(r), expect_rows);
        exit(1);
    }
    if (!ok) {
        const char *code = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        if (!code) {
            fprintf(stderr, "pg_bench: floor: %s", PQerrorMessage(w->conn));
            exit(1);
        }
        snprintf(state, 6, "%s", code);
    }
    PQclear(r);
    return ok ? 0 : -1;
}

/* Runs body in a SERIALIZABLE transaction (queued: behind the queue's lock), and again, up to
 * MAX_TRIES times, after a random pause of up to 1 ms << (tries - 1) (at most 128 ms), on a
 * serialization failure, deadlock or unique violation: what the engine's store does. Returns 0,
 * or -1 after an error that is not a conflict or too many tries. */
static int floor_transaction(worker *w, int kind, int queued, int (*body)(worker *, void *, char[6]), void *ctx) {
    char state[6] = "";
    w->queued = queued;
    w->read_committed = kind == T_DELIVERED;
    for (int tries = 1;; tries++) {
        w->begin_pending = 1; /* the start goes with the first statement */
        if (body(w, ctx, state) == 0 && floor_send(w, -1, "COMMIT", NULL, -1, state) == 0) {
            w->transactions++;
            return 0;
        }
        char ignored[6];
        floor_send(w, -1, "ROLLBACK", NULL, -1, ignored); /* as the engine: also after a failed COMMIT */
        int conflict = !strcmp(state, "40001") || !strcmp(state, "40P01") || !strcmp(state, "23505");
        if (!conflict || tries == MAX_TRIES) {
            char key[80];
            snprintf(key, sizeof key, "%s:SQLSTATE %s", transaction_names[kind], state);
            add_error(&w->errors, key, 1, conflict ? "too many conflicts" : "not a conflict");
            return -1;
        }
        w->retries++;
        w->retries_by[kind]++;
        int shift = tries - 1 < 7 ? tries - 1 : 7;
        usleep((useconds_t)(random() % ((1000 << shift) + 1)));
    }
}

/* A sortable ID as the engine makes them: 12 hex digits of the time in ms, then random URL-safe
 * characters (`len` in all). */
static void sortable_id(char *out, size_t len, long long ms, int time_prefix) {
    static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    unsigned char rnd[64];
    RAND_bytes(rnd, sizeof rnd);
    size_t i = 0;
    if (time_prefix) {
        snprintf(out, 13, "%012llx", ms);
        i = 12;
    }
    for (; i < len; i++) out[i] = chars[rnd[i] & 63];
    out[len] = 0;
}

static long long wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct {
    char phone[32], vid[40], uid[32], sid[24];
    unsigned char code_hash[32], sealed_body[61], secret_hash[32];
    long long now;
} floor_flow_data;

static int verify_body(worker *w, void *ctx, char state[6]) {
    floor_flow_data *f = ctx;
    char b1[24], b2[24], b3[24], b4[24];
    const long long day = 86400000, bucket = f->now - f->now % day;
    params p = {0};
    /* The engine's default smsPerNumberPerHour is 5: the 5th latest send of the hour, if any. */
    text_param(&p, f->phone), text_param(&p, f->phone), int_param(&p, b1, f->now - 3600000), int_param(&p, b2, 4);
    text_param(&p, f->phone), text_param(&p, "signIn"), text_param(&p, NULL);
    if (floor_send(w, S_SEND_STATE, NULL, &p, 1, state)) return -1;
    p = (params){0};
    int_param(&p, b1, bucket), int_param(&p, b2, bucket - day), text_param(&p, "project:");
    if (floor_send(w, S_COUNTERS, NULL, &p, -1, state)) return -1;
    p = (params){0};
    text_param(&p, f->vid), text_param(&p, f->phone), blob_param(&p, f->code_hash, 32), int_param(&p, b1, f->now);
    int_param(&p, b2, f->now + 300000), text_param(&p, "sending"), text_param(&p, "en");
    blob_param(&p, f->sealed_body, sizeof f->sealed_body), int_param(&p, b3, f->now + 30000);
    text_param(&p, "signIn"), text_param(&p, NULL);
    if (floor_send(w, S_INSERT_VERIFICATION, NULL, &p, 0, state)) return -1;
    p = (params){0};
    int_param(&p, b4, bucket), text_param(&p, "project:");
    return floor_send(w, S_BUMP, NULL, &p, 0, state);
}

static int sign_in_body(worker *w, void *ctx, char state[6]) {
    floor_flow_data *f = ctx;
    char b1[24];
    params p = {0};
    text_param(&p, f->vid);
    if (floor_send(w, S_VERIFICATION, NULL, &p, 1, state)) return -1;
    p = (params){0};
    text_param(&p, f->phone), text_param(&p, f->phone);
    if (floor_send(w, S_NUMBER_HOLDER, NULL, &p, 1, state)) return -1;
    p = (params){0};
    text_param(&p, f->vid);
    if (floor_send(w, S_USED, NULL, &p, 0, state)) return -1;
    p = (params){0};
    text_param(&p, f->uid), text_param(&p, f->phone), int_param(&p, b1, f->now), text_param(&p, b1);
    if (floor_send(w, S_INSERT_USER, NULL, &p, 0, state)) return -1;
    p = (params){0};
    text_param(&p, f->sid), text_param(&p, f->uid), blob_param(&p, f->secret_hash, 32), text_param(&p, b1);
    text_param(&p, b1), text_param(&p, "phone"), text_param(&p, NULL), text_param(&p, NULL), text_param(&p, NULL);
    return floor_send(w, S_INSERT_SESSION, NULL, &p, 0, state);
}

/* The recorder: the floor's delivery thread, doing what the engine's does with the database.
 * It records the outcomes it has in one transaction once no new one came for 2 ms (or 64 are
 * waiting). And, as the engine's: when a message came while it was waiting, it afterwards looks
 * for messages due in the store, with two reads (outside any transaction) of S_NEXT_DUE. */
#define RECORD_BATCH 64
static struct {
    pthread_mutex_t lock;
    pthread_cond_t posted;
    char (*ids)[40];
    size_t count, capacity;
    int idle;           /* waiting for messages */
    int wake_requested; /* a message came while it was idle */
    int stopping;
    worker w;
} recorder = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0, 0, 0, {0}};

static void record_sent(const char *vid) {
    pthread_mutex_lock(&recorder.lock);
    if (recorder.count == recorder.capacity) {
        recorder.capacity = recorder.capacity ? 2 * recorder.capacity : 256;
        recorder.ids = realloc(recorder.ids, recorder.capacity * sizeof *recorder.ids);
        if (!recorder.ids) die("out of memory");
    }
    memcpy(recorder.ids[recorder.count++], vid, 40);
    if (recorder.idle) recorder.wake_requested = 1;
    pthread_cond_broadcast(&recorder.posted);
    pthread_mutex_unlock(&recorder.lock);
}

typedef struct {
    char (*ids)[40];
    size_t n;
} sent_batch;

static int sent_body(worker *w, void *ctx, char state[6]) {
    sent_batch *b = ctx;
    for (size_t i = 0; i < b->n; i++) {
        params p = {0};
        text_param(&p, b->ids[i]);
        if (floor_send(w, S_SENT, NULL, &p, 0, state)) return -1;
    }
    return 0;
}

static void *recorder_main(void *arg) {
    (void)arg;
    char batch[RECORD_BATCH][40];
    pthread_mutex_lock(&recorder.lock);
    for (;;) {
        recorder.idle = 1;
        while (!recorder.count && !recorder.stopping) pthread_cond_wait(&recorder.posted, &recorder.lock);
        if (!recorder.count) break;
        /* Wait while more keep coming within 2 ms, up to a full batch. */
        for (size_t seen = 0; recorder.count != seen && recorder.count < RECORD_BATCH && !recorder.stopping;) {
            seen = recorder.count;
            struct timespec deadline;
            clock_gettime(CLOCK_REALTIME, &deadline);
            deadline.tv_nsec += 2000000;
            if (deadline.tv_nsec >= 1000000000) deadline.tv_sec++, deadline.tv_nsec -= 1000000000;
            pthread_cond_timedwait(&recorder.posted, &recorder.lock, &deadline);
        }
        recorder.idle = 0;
        size_t n = recorder.count < RECORD_BATCH ? recorder.count : RECORD_BATCH;
        memcpy(batch, recorder.ids, n * sizeof *batch);
        memmove(recorder.ids, recorder.ids + n, (recorder.count - n) * sizeof *recorder.ids);
        recorder.count -= n;
        pthread_mutex_unlock(&recorder.lock);
        if (n == 1) { /* as the engine: one outcome is one statement, without BEGIN and COMMIT */
            params p = {0};
            char state[6];
            text_param(&p, batch[0]);
            if (floor_send(&recorder.w, S_SENT, NULL, &p, 0, state) == 0) recorder.w.transactions++;
        } else {
            sent_batch b = {batch, n};
            floor_transaction(&recorder.w, T_DELIVERED, 0, sent_body, &b);
        }
        pthread_mutex_lock(&recorder.lock);
        if (recorder.wake_requested && !recorder.count) {
            recorder.wake_requested = 0;
            pthread_mutex_unlock(&recorder.lock);
            char state[6];
            floor_send(&recorder.w, S_NEXT_DUE, NULL, &(params){0}, 1, state);
            pthread_mutex_lock(&recorder.lock);
        }
    }
    pthread_mutex_unlock(&recorder.lock);
    return NULL;
}

/* The flow's transactions for flow number i, on this thread's connection. */
static int floor_flow(worker *w, long i) {
    floor_flow_data f;
    phone_number(i, f.phone, sizeof f.phone);
    f.now = wall_ms();
    RAND_bytes(f.code_hash, sizeof f.code_hash);
    RAND_bytes(f.sealed_body, sizeof f.sealed_body);
    RAND_bytes(f.secret_hash, sizeof f.secret_hash);
    sortable_id(f.vid, 36, f.now, 1);
    uint64_t t0 = now_ns();
    if (floor_transaction(w, T_VERIFY, 1, verify_body, &f) != 0) return -1;
    uint64_t t1 = now_ns();
    record_sent(f.vid);
    f.now = wall_ms();
    sortable_id(f.uid, 28, f.now, 1);
    sortable_id(f.sid, 22, f.now, 0);
    int rc = floor_transaction(w, T_SIGN_IN, 0, sign_in_body, &f);
    w->lat[L_VERIFY] = t1 - t0;
    w->lat[L_SIGN_IN] = now_ns() - t1;
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Processes and threads.                                                                       */

typedef enum { MODE_ENGINE, MODE_FLOOR } run_mode;

static run_mode current_mode;

static void *worker_main(void *arg) {
    worker *w = arg;
    for (;;) {
        long i = __atomic_fetch_add(w->next_index, 1, __ATOMIC_RELAXED);
        if (i >= w->end_index) break;
        uint64_t t0 = now_ns();
        int rc = current_mode == MODE_ENGINE ? engine_flow(w, i) : floor_flow(w, i);
        uint64_t t1 = now_ns();
        if (rc == 0) {
            w->ok++;
            w->lat[L_FLOW] = t1 - t0;
            if (w->timed) memcpy(shared->latency_ns[current_mode * w->flows + i], w->lat, sizeof w->lat);
        } else {
            w->failed++;
        }
    }
    return NULL;
}

/* Runs worker_main on `threads` threads at once, flow numbers from *next up to end. */
static void run_threads(worker *w, int threads, long *next, long end, int timed) {
    pthread_t tid[MAX_THREADS];
    for (int t = 0; t < threads; t++) {
        w[t].next_index = next;
        w[t].end_index = end;
        w[t].timed = timed;
        if (pthread_create(&tid[t], NULL, worker_main, &w[t]) != 0) die("pthread_create failed");
    }
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
}

/* Adds the counts and errors of `w` to the report and clears them. */
static void collect(proc_report *r, worker *w) {
    r->ok += w->ok;
    r->failed += w->failed;
    r->not_new_user += w->not_new_user;
    r->transactions += w->transactions;
    r->retries += w->retries;
    r->round_trips += w->round_trips;
    for (int k = 0; k < T_COUNT; k++) r->retries_by[k] += w->retries_by[k];
    for (int k = 0; k < w->errors.n; k++)
        add_error(&r->errors, w->errors.kinds[k].key, w->errors.kinds[k].count, w->errors.kinds[k].sample);
    w->ok = w->failed = w->not_new_user = w->transactions = w->retries = w->round_trips = 0;
    memset(w->retries_by, 0, sizeof w->retries_by);
    w->errors.n = 0;
}

/* Waits until the recorder has nothing left to record. */
static void recorder_drain(void) {
    for (;;) {
        pthread_mutex_lock(&recorder.lock);
        size_t left = recorder.count;
        pthread_mutex_unlock(&recorder.lock);
        if (!left) break;
        usleep(1000);
    }
    usleep(20000); /* its last transaction */
}

/* One process of a run: warm up, tell the parent, wait for the start, run, report. */
static void child_main(const run_spec *spec, int index, int ready_fd, int go_fd, int done_fd) {
    proc_report *r = &shared->procs[index];
    worker w[MAX_THREADS];
    memset(w, 0, sizeof w);
    phoneauth_engine *engine = NULL;
    pthread_t recorder_thread;
    long tx0 = 0, retries0 = 0, trips0 = 0;

    if (current_mode == MODE_ENGINE) {
        engine = open_engine(spec);
        for (int t = 0; t < spec->threads; t++) w[t].engine = engine;
    } else {
        set_queue(spec->schema);
        for (int t = 0; t < spec->threads; t++) w[t].conn = floor_connect(spec);
        recorder.w.conn = floor_connect(spec);
        if (pthread_create(&recorder_thread, NULL, recorder_main, NULL) != 0) die("pthread_create failed");
    }

    /* Warm-up: untimed, on every thread at once (so the engine opens the connections it will
     * use), with numbers of this process's own. */
    long warm_next = spec->warmup_base + 1000L * index;
    run_threads(w, spec->threads, &warm_next, warm_next + WARMUP_FLOWS, 0);
    proc_report warm = {0};
    for (int t = 0; t < spec->threads; t++) collect(&warm, &w[t]);
    if (engine) {
        usleep(20000);
        engine_statistics(engine, &tx0, &retries0, &trips0, &r->pool_size);
    } else {
        recorder_drain();
        collect(&warm, &recorder.w);
    }
    if (warm.failed)
        fprintf(stderr, "pg_bench: %ld of %d warm-up flows failed (%s: %s)\n", warm.failed, WARMUP_FLOWS,
                warm.errors.kinds[0].key, warm.errors.kinds[0].sample);

    char byte = 1;
    if (write(ready_fd, &byte, 1) != 1) die("write to the parent failed");
    close(ready_fd);
    if (read(go_fd, &byte, 1) != 0) die("unexpected start signal"); /* EOF: the parent closed it */
    close(go_fd);

    double cpu0 = cpu_seconds();
    r->start_ns = now_ns();
    for (int t = 0; t < spec->threads; t++) w[t].flows = spec->flows;
    run_threads(w, spec->threads, &shared->next_index, shared->end_index, 1);
    r->end_ns = now_ns();
    r->cpu_seconds = cpu_seconds() - cpu0;
    if (write(done_fd, &byte, 1) != 1) die("write to the parent failed");
    close(done_fd);
    for (int t = 0; t < spec->threads; t++) collect(r, &w[t]);

    if (engine) {
        /* The delivery thread records the last outcomes a moment after the last SMS. */
        usleep(20000);
        long tx1, retries1, trips1;
        engine_statistics(engine, &tx1, &retries1, &trips1, &r->pool_size);
        r->transactions = tx1 - tx0;
        r->retries = retries1 - retries0;
        r->round_trips = trips1 - trips0;
        phoneauth_close(engine);
    } else {
        recorder_drain();
        pthread_mutex_lock(&recorder.lock);
        recorder.stopping = 1;
        pthread_cond_broadcast(&recorder.posted);
        pthread_mutex_unlock(&recorder.lock);
        pthread_join(recorder_thread, NULL);
        collect(r, &recorder.w);
        r->pool_size = spec->threads + 1; /* connections: one per thread and the recorder's */
        for (int t = 0; t < spec->threads; t++) PQfinish(w[t].conn);
        PQfinish(recorder.w.conn);
    }
}

/* Opens and closes one engine on the schema, in a child process: the engine's migrations make
 * the schema (tables, indexes) and its signing key. */
static void prepare_schema(const run_spec *spec) {
    pid_t pid = fork();
    if (pid < 0) die("fork failed");
    if (pid == 0) {
        phoneauth_close(open_engine(spec));
        _exit(0);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("could not prepare the schema");
}

static void drop_schema(const char *url, const char *schema) {
    PGconn *c = PQconnectdb(url);
    PQsetNoticeProcessor(c, quiet, NULL); /* "drop cascades to ..." */
    if (PQstatus(c) == CONNECTION_OK) {
        char sql[160];
        snprintf(sql, sizeof sql, "DROP SCHEMA IF EXISTS %s CASCADE", schema);
        PQclear(PQexec(c, sql));
    }
    PQfinish(c);
}

/* Reads up to n bytes (one per process), fewer if every writer went away. */
static int read_bytes(int fd, int n) {
    int count = 0;
    char byte;
    while (count < n && read(fd, &byte, 1) == 1) count++;
    return count;
}

/* From /proc/<pid>/stat: the command name, the parent, the CPU time used (utime + stime) and
 * that of the children it has reaped (cutime + cstime), in clock ticks. -1 if there is no such process. */
static int proc_times(pid_t pid, char comm[32], long long *ppid, long long *own, long long *reaped) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *open = strchr(buf, '('), *close = strrchr(buf, ')'); /* the name may hold spaces */
    if (!open || !close || close < open) return -1;
    snprintf(comm, 32, "%.*s", (int)(close - open - 1), open + 1);
    char state;
    long long ut, st, cut, cst;
    if (sscanf(close + 2, "%c %lld %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld %lld %lld", &state, ppid, &ut, &st,
               &cut, &cst) != 6)
        return -1;
    *own = ut + st;
    *reaped = cut + cst;
    return 0;
}

/* CPU time of the server: the postmaster, its children alive now, and those it has reaped
 * (cutime, cstime). The difference of two readings is what the server used in between, whether
 * backends ended meanwhile or not. */
static double server_cpu_seconds(pid_t postmaster) {
    if (!postmaster) return 0;
    char comm[32];
    long long ppid, own, reaped;
    if (proc_times(postmaster, comm, &ppid, &own, &reaped) != 0) return 0;
    long long ticks = own + reaped;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        if (proc_times((pid_t)atoi(e->d_name), comm, &ppid, &own, &reaped) == 0 && ppid == postmaster) ticks += own;
    }
    if (d) closedir(d);
    return (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

/* What the runs of one side (engine or floor) of a configuration add up to. */
typedef struct {
    long ok, failed, not_new_user, transactions, retries, round_trips, pool_size;
    long retries_by[T_COUNT];
    double seconds, client_cpu, server_cpu;
    error_table errors;
} totals;

/* Runs flows [first, end) on one side: forks the processes, starts them together when all are
 * warmed up, waits for them, adds their reports to *t. */
static void run(run_mode mode, const run_spec *spec, long first, long end, totals *t) {
    current_mode = mode;
    shared->next_index = first;
    shared->end_index = end;
    memset(shared->procs, 0, sizeof shared->procs);

    /* Each process writes a byte on `ready` once warmed up and on `done` after its last flow;
     * all wait for the end of `go`, which the parent closes to start them together. */
    int ready[2], go[2], done[2];
    if (pipe(ready) != 0 || pipe(go) != 0 || pipe(done) != 0) die("pipe failed");
    pid_t pids[MAX_PROCS];
    fflush(NULL);
    for (int p = 0; p < spec->processes; p++) {
        pids[p] = fork();
        if (pids[p] < 0) die("fork failed");
        if (pids[p] == 0) {
            close(ready[0]);
            close(go[1]);
            close(done[0]);
            child_main(spec, p, ready[1], go[0], done[1]);
            fflush(NULL);
            _exit(0);
        }
    }
    close(ready[1]);
    close(go[0]);
    close(done[1]);
    if (read_bytes(ready[0], spec->processes) < spec->processes) {
        for (int p = 0; p < spec->processes; p++) kill(pids[p], SIGTERM);
        die("a process failed before the start");
    }
    close(ready[0]);
    double server0 = server_cpu_seconds(spec->postmaster);
    close(go[1]); /* every process waiting on it starts now */
    int done_count = read_bytes(done[0], spec->processes);
    t->server_cpu += server_cpu_seconds(spec->postmaster) - server0;
    close(done[0]);
    if (done_count < spec->processes) die("a benchmark process failed");
    for (int p = 0; p < spec->processes; p++) {
        int status;
        if (waitpid(pids[p], &status, 0) != pids[p] || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            die("a benchmark process failed");
    }

    uint64_t start = UINT64_MAX, stop = 0;
    for (int p = 0; p < spec->processes; p++) {
        proc_report *r = &shared->procs[p];
        t->ok += r->ok;
        t->failed += r->failed;
        t->not_new_user += r->not_new_user;
        t->transactions += r->transactions;
        t->retries += r->retries;
        t->round_trips += r->round_trips;
        for (int k = 0; k < T_COUNT; k++) t->retries_by[k] += r->retries_by[k];
        t->pool_size = r->pool_size;
        t->client_cpu += r->cpu_seconds;
        if (r->start_ns < start) start = r->start_ns;
        if (r->end_ns > stop) stop = r->end_ns;
        for (int k = 0; k < r->errors.n; k++)
            add_error(&t->errors, r->errors.kinds[k].key, r->errors.kinds[k].count, r->errors.kinds[k].sample);
    }
    t->seconds += (double)(stop - start) / 1e9;
}

/* One side's figures. */
static json_t *report(run_mode mode, const run_spec *spec, const totals *t) {
    double per = t->ok ? 1.0 / (double)t->ok : 0;
    double fps = t->seconds > 0 ? t->ok / t->seconds : 0;
    json_t *j = json_pack("{s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:i}", "flows", (json_int_t)t->ok, "failed",
                          (json_int_t)t->failed, "seconds", round2(t->seconds), "flowsPerSecond", round2(fps),
                          "roundTripsPerFlow", round2(t->round_trips * per), "transactionsPerFlow",
                          round2(t->transactions * per), "retriesPer1000Flows", round2(t->retries * 1000.0 * per),
                          "poolSize", (int)t->pool_size);
    json_object_set_new(j, "clientCpuUsPerFlow", json_real(round2(t->client_cpu * 1e6 * per)));
    if (spec->postmaster) json_object_set_new(j, "serverCpuUsPerFlow", json_real(round2(t->server_cpu * 1e6 * per)));
    json_t *lat = json_object();
    uint64_t *column = malloc((size_t)spec->flows * sizeof(uint64_t));
    if (!column) die("out of memory");
    for (int l = 0; l < L_COUNT; l++) {
        if (l == L_SMS_WAIT && mode == MODE_FLOOR) continue;
        for (long i = 0; i < spec->flows; i++) column[i] = shared->latency_ns[mode * spec->flows + i][l];
        json_object_set_new(lat, latency_names[l], latency_percentiles(column, (size_t)spec->flows));
    }
    free(column);
    json_object_set_new(j, "latencyUs", lat);
    if (mode == MODE_ENGINE) json_object_set_new(j, "notNewUser", json_integer(t->not_new_user));
    if (mode == MODE_FLOOR) {
        json_t *by = json_object();
        for (int k = 0; k < T_COUNT; k++)
            json_object_set_new(by, transaction_names[k], json_real(round2(t->retries_by[k] * 1000.0 * per)));
        json_object_set_new(j, "retriesPer1000FlowsBy", by);
    }
    set_errors_json(j, &t->errors);
    fprintf(stderr,
            "pg_bench: %s %dx%d: %.0f flows/s, %.2f round trips/flow, %.1f retries/1000 flows, %ld failed (%ld %s)\n",
            mode == MODE_ENGINE ? "engine" : "floor ", spec->processes, spec->threads, fps, t->round_trips * per,
            t->retries * 1000.0 * per, t->failed, t->pool_size,
            mode == MODE_ENGINE ? "connections in each pool" : "connections per process");
    return j;
}

/* One configuration: engine and floor, each on a schema of its own, in the order engine, floor,
 * floor, engine with half the flows each time, so that a change in the machine's load during
 * the configuration weighs on both alike. */
static json_t *run_configuration(run_spec spec, int processes, int threads) {
    spec.processes = processes;
    spec.threads = threads;
    fprintf(stderr, "pg_bench: %d process(es) x %d thread(s), %ld flows...\n", processes, threads, spec.flows);
    run_spec side[2] = {spec, spec};
    for (int m = 0; m < 2; m++) {
        snprintf(side[m].schema, sizeof side[m].schema, "bench_%d_p%dt%d_%s", (int)getpid(), processes, threads,
                 m == MODE_ENGINE ? "engine" : "floor");
        prepare_schema(&side[m]);
    }
    totals t[2];
    memset(t, 0, sizeof t);
    memset(shared->latency_ns, 0, 2 * (size_t)spec.flows * sizeof *shared->latency_ns);
    long half = spec.flows / 2;
    static const run_mode order[4] = {MODE_ENGINE, MODE_FLOOR, MODE_FLOOR, MODE_ENGINE};
    for (int k = 0; k < 4; k++) {
        run_mode m = order[k];
        side[m].warmup_base = 900000 + 10000 * (k / 2); /* numbers not used before on this schema */
        run(m, &side[m], k < 2 ? 0 : half, k < 2 ? half : spec.flows, &t[m]);
    }
    for (int m = 0; m < 2; m++) drop_schema(spec.url, side[m].schema);

    json_t *engine = report(MODE_ENGINE, &spec, &t[MODE_ENGINE]);
    json_t *floor = report(MODE_FLOOR, &spec, &t[MODE_FLOOR]);
    double fps = json_real_value(json_object_get(engine, "flowsPerSecond"));
    double floor_fps = json_real_value(json_object_get(floor, "flowsPerSecond"));
    json_t *r = json_pack("{s:i,s:i,s:O}", "processes", processes, "threads", threads, "poolSize",
                          json_object_get(engine, "poolSize"));
    json_object_del(engine, "poolSize");
    json_object_set(floor, "connectionsPerProcess", json_object_get(floor, "poolSize"));
    json_object_del(floor, "poolSize");
    static const char *const copied[] = {"flowsPerSecond", "roundTripsPerFlow", "retriesPer1000Flows"};
    for (int i = 0; i < 3; i++) json_object_set(r, copied[i], json_object_get(engine, copied[i]));
    json_object_set(r, "floorFlowsPerSecond", json_object_get(floor, "flowsPerSecond"));
    json_object_set_new(r, "ratioToFloor", json_real(round2(floor_fps > 0 ? fps / floor_fps : 0)));
    json_object_set(r, "floorRoundTripsPerFlow", json_object_get(floor, "roundTripsPerFlow"));
    json_object_set(r, "floorRetriesPer1000Flows", json_object_get(floor, "retriesPer1000Flows"));
    json_object_set_new(r, "atLeastHalfOfFloor", json_boolean(floor_fps > 0 && fps >= 0.5 * floor_fps));
    json_object_set_new(r, "engine", engine);
    json_object_set_new(r, "floor", floor);
    return r;
}

/* The server's version and synchronous_commit; and its postmaster's pid if it runs on this
 * machine (found from our backend's parent), else 0. */
static const char *server_info(const char *url, pid_t *postmaster) {
    static char v[64] = "?";
    PGconn *c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "pg_bench: cannot connect: %s", PQerrorMessage(c));
        exit(1);
    }
    PGresult *res = PQexec(c, "SELECT current_setting('server_version') || ', synchronous_commit=' ||"
                              " current_setting('synchronous_commit')");
    if (PQresultStatus(res) == PGRES_TUPLES_OK) snprintf(v, sizeof v, "%s", PQgetvalue(res, 0, 0));
    PQclear(res);
    char comm[32];
    long long parent, grandparent, own, reaped;
    *postmaster = 0;
    if (proc_times(PQbackendPID(c), comm, &parent, &own, &reaped) == 0 && strcmp(comm, "postgres") == 0 &&
        proc_times((pid_t)parent, comm, &grandparent, &own, &reaped) == 0 && strcmp(comm, "postgres") == 0)
        *postmaster = (pid_t)parent;
    PQfinish(c);
    return v;
}

int main(void) {
    const char *url = getenv("BENCH_POSTGRES_URL");
    if (!url || !*url) url = getenv("PHONEAUTH_TEST_POSTGRES_URL");
    if (!url || !*url) {
        fprintf(stderr, "pg_bench: PHONEAUTH_TEST_POSTGRES_URL is not set: no PostgreSQL figures\n");
        puts("{\"postgres\": {\"skipped\": \"PHONEAUTH_TEST_POSTGRES_URL is not set\"}}");
        return 0;
    }
    if (phoneauth_abi_version() != PHONEAUTH_ABI_VERSION) die("library ABI version differs from the header");
    run_spec spec = {.url = url, .flows = env_long("BENCH_FLOWS_PG", env_long("BENCH_FLOWS", 3000)),
                     .pool_size = (int)env_long("BENCH_PG_POOL", 4)};
    if (spec.flows > 800000) spec.flows = 800000; /* distinct numbers below the warm-up ranges */
    if (spec.pool_size > 100) spec.pool_size = 100;
    /* The configurations, "PxT,...": $BENCH_PG_CONFIGS, default 1x2,2x2,4x1. */
    const char *configs = getenv("BENCH_PG_CONFIGS");
    if (!configs || !*configs) configs = "1x2,2x2,4x1";

    unsigned char key[32];
    char master_key[65];
    if (RAND_bytes(key, sizeof key) != 1) die("RAND_bytes failed");
    hex(key, sizeof key, master_key);
    spec.master_key = master_key;

    size_t size = sizeof(shared_area) + 2 * (size_t)spec.flows * sizeof *shared->latency_ns;
    shared = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) die("mmap failed");

    json_t *pg = json_object();
    json_object_set_new(pg, "library", json_string(phoneauth_version()));
    json_object_set_new(pg, "server", json_string(server_info(url, &spec.postmaster)));
    json_object_set_new(pg, "flowsPerConfiguration", json_integer(spec.flows));
    for (const char *c = configs; *c;) {
        int processes, threads, used;
        if (sscanf(c, "%dx%d%n", &processes, &threads, &used) != 2 || processes < 1 || processes > MAX_PROCS ||
            threads < 1 || threads > MAX_THREADS)
            die("BENCH_PG_CONFIGS: expected PxT,PxT,... (1 to 8 each)");
        char name[16];
        snprintf(name, sizeof name, "p%dt%d", processes, threads);
        json_object_set_new(pg, name, run_configuration(spec, processes, threads));
        c += used;
        if (*c == ',') c++;
    }

    print_json(json_pack("{s:o}", "postgres", pg));
    munmap(shared, size);
    return 0;
}
