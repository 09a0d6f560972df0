/*
 * testutil.h: the small helpers every C test of libphoneauth shares.
 *
 *   CHECK(cond) / CHECKF(cond, fmt, ...)   count a pass or print a failure (thread-safe)
 *   tu_finish()                            prints "N passed, M failed"; the exit status of main
 *   tu_call* / EXPECT_OK / EXPECT_ERR      run a method and check the result/error object's shape
 *   tu_sms_*                               an SMS sender that captures messages (mutex + condvar)
 *   tu_tmpdir / tu_rmtree / tu_open        a scratch folder under /tmp with an engine on it
 *
 * The store: SQLite files in the scratch folder, or, with PHONEAUTH_TEST_DATABASE=postgres, the
 * PostgreSQL server at $PHONEAUTH_TEST_POSTGRES_URL, one schema per database path (see
 * tu_set_database).
 */
#ifndef PHONEAUTH_TESTUTIL_H
#define PHONEAUTH_TESTUTIL_H

#include <phoneauth.h>
#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <time.h>

/* ---- assertions ---------------------------------------------------------------------------- */

/* Records one check. Returns ok so a caller can stop early: if (!CHECK(x)) return; */
int tu_check(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define CHECK(cond) tu_check(!!(cond), __FILE__, __LINE__, #cond, NULL)
#define CHECKF(cond, ...) tu_check(!!(cond), __FILE__, __LINE__, #cond, __VA_ARGS__)

/* Prints "N passed, M failed" and returns the exit status for main (non-zero on any failure
 * and when no check ran at all). */
int tu_finish(void);

/* How many checks failed so far. */
int tu_failures(void);

/* Timeout in milliseconds, multiplied by $PHONEAUTH_TEST_TIMEOUT_SCALE (set under valgrind). */
int tu_timeout_ms(int base_ms);

/* True when the tests run under the memcheck target ($PHONEAUTH_TEST_MEMCHECK), where loops
 * are made shorter. */
int tu_memcheck(void);

void tu_sleep_ms(int ms);

/* A deadline ms from now on CLOCK_MONOTONIC, and a condition variable that waits on that clock. */
void tu_deadline_after(struct timespec *ts, int ms);
void tu_init_monotonic_cond(pthread_cond_t *cv);

/* ---- knowing that a close has begun ------------------------------------------------------------
 * phoneauth_close first stops the engine's delivery threads from taking more messages, then waits
 * for the sends in flight. The thread that tells delivery events (codeSent, deliveryFailed) to the
 * log sink is one of those threads, and it ends at no other time: a test that must know a close
 * has begun (to let a held send go only then) marks that thread from its sink and waits for it to
 * end, instead of hoping the close comes within some time. (The events of the last sends come on
 * the closing thread, which gets marked too: it is the test's own and ends after the close.) */

/* Marks the calling thread (a sink calls it on codeSent); marking a thread again does nothing. */
void tu_mark_thread(void);
/* How many marked threads have ended so far. */
int tu_marked_ended(void);
/* Waits until at least n marked threads have ended (or timeout_ms pass); returns how many have. */
int tu_wait_marked_ended(int n, int timeout_ms);

/* ---- scratch folders and engines ------------------------------------------------------------ */

/* Creates a fresh folder /tmp/phoneauth-ctest-XXXXXX; returns a malloc'ed path (free it). */
char *tu_tmpdir(void);

/* True when the tests run against PostgreSQL (PHONEAUTH_TEST_DATABASE=postgres). */
int tu_postgres(void);

/* Points a configuration object at the database "db" (a path <dir>/<name>.db). On SQLite it sets
 * "database" to the path. On PostgreSQL it sets "database" to $PHONEAUTH_TEST_POSTGRES_URL,
 * "postgres.schema" to a schema named after the path (the same path always gives the same schema,
 * two paths never one) unless the configuration has one, and "masterKey" to a fixed test key
 * unless the configuration has one (PostgreSQL has no key file). The schema is dropped by the
 * tu_rmtree of a folder above the path. */
void tu_set_database(json_t *config, const char *db);

/* The PostgreSQL schema of the database path db (static buffer per thread). */
const char *tu_schema_for(const char *db);

/* Whether the database db (a path as given to tu_set_database) keeps needle anywhere (secrets at
 * rest): on SQLite, the file or its -wal or -journal file; on PostgreSQL, any value of any column
 * of any table of its schema (read in binary form: text as it is, bytea as raw bytes). */
int tu_db_contains(const char *db, const char *needle);

/* Removes a folder and everything under it; on PostgreSQL also drops the schemas of the database
 * paths under it that this process used. */
void tu_rmtree(const char *path);

/* Opens an engine on <dir>/<name>.db (through tu_set_database). extra_config is a JSON object merged into the
 * configuration (may be NULL). The default test configuration sets resendAfterSeconds 0.
 * On failure records a failed check (with the error) and returns NULL. */
phoneauth_engine *tu_open(const char *dir, const char *name, const char *extra_config);

/* ---- calls ---------------------------------------------------------------------------------- */

/* Runs phoneauth_call and parses the output. Checks the contract every call must keep: the
 * output is set, is a JSON object, and on failure is {"error": {code, status == returned int,
 * message, details (object)}} with a non-NULL strerror. Returns the parsed object (new reference;
 * json_decref it) or NULL when the output was missing or not JSON. *status gets the return. */
#define tu_call(e, m, p, st) tu_call_at(__FILE__, __LINE__, (e), (m), (p), (st))
json_t *tu_call_at(const char *file, int line, phoneauth_engine *e, const char *method,
                   const char *params, int *status);

/* Same, with the parameters as a jansson value (stolen: the function decrefs it). */
#define tu_callj(e, m, p, st) tu_callj_at(__FILE__, __LINE__, (e), (m), (p), (st))
json_t *tu_callj_at(const char *file, int line, phoneauth_engine *e, const char *method,
                    json_t *params, int *status);

/* Checks the raw output of any phoneauth_* call (status + out string) and parses it. Frees out. */
#define tu_parse_out(st, out) tu_parse_out_at(__FILE__, __LINE__, (st), (out))
json_t *tu_parse_out_at(const char *file, int line, int status, char *out);

/* Checks that a call failed with the given status and code name. */
#define EXPECT_ERR(res, st, want_status, want_code) \
    tu_expect_err(__FILE__, __LINE__, (res), (st), (want_status), (want_code))
int tu_expect_err(const char *file, int line, json_t *res, int status, int want_status,
                  const char *want_code);

/* Checks that a call succeeded. */
#define EXPECT_OK(res, st) tu_expect_ok(__FILE__, __LINE__, (res), (st))
int tu_expect_ok(const char *file, int line, json_t *res, int status);

/* Field access by a dotted path, e.g. "error.details.reason" or "user.uid".
 * Borrowed reference or NULL. */
json_t *tu_get(json_t *root, const char *path);
/* The string at a path, or NULL if missing or not a string. */
const char *tu_str(json_t *root, const char *path);
/* The integer at a path, or `dflt` if missing or not an integer. */
long long tu_int(json_t *root, const char *path, long long dflt);
/* 1 / 0 for true / false at a path, -1 when missing or not a boolean. */
int tu_bool(json_t *root, const char *path);
/* The error message of an error object (or "" when absent). */
const char *tu_errmsg(json_t *res);
/* A compact dump of a value for failure messages (static buffer per thread). */
const char *tu_dump(json_t *v);

/* ---- SMS capture ---------------------------------------------------------------------------- */

typedef struct tu_sms {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    json_t *messages;       /* array of every message received (parsed), in order */
    int calls;              /* callback invocations */
    int fail_next;          /* return non-zero for this many further invocations */
    int bad_messages;       /* invocations whose message was NULL or not a JSON object */
    int overlapped;         /* set when two invocations ran at the same time */
    int on_caller_thread;   /* set when an invocation ran on the thread that created the capture */
    int inflight;
    int delay_ms;           /* each invocation sleeps this long before returning */
    int hold_until;         /* > 0: each invocation returns once that many marked threads ended */
    int returned;           /* invocations that have returned */
    pthread_t creator;
    const char *tag;        /* recorded in each message as "_tag" (to tell two senders apart) */
} tu_sms;

void tu_sms_init(tu_sms *s, const char *tag);
void tu_sms_destroy(tu_sms *s);
/* The phoneauth_sms_sender to install with ctx = the tu_sms. */
int tu_sms_sender(void *ctx, const char *message_json);
/* Waits until a message for this verification ID arrived; returns it (new reference) or NULL. */
json_t *tu_sms_wait(tu_sms *s, const char *verification_id, int timeout_ms);
/* Waits until the callback was invoked at least n times; returns the number of invocations. */
int tu_sms_wait_calls(tu_sms *s, int n, int timeout_ms);
int tu_sms_calls(tu_sms *s);
void tu_sms_fail_next(tu_sms *s, int n);
void tu_sms_set_delay(tu_sms *s, int ms);
/* Holds each later invocation until the close of an engine whose bookkeeping thread is marked
 * (tu_sent_sink) has begun: until tu_marked_ended() is above its value now. */
void tu_sms_hold_until_close(tu_sms *s);
int tu_sms_returned(tu_sms *s);

/* ---- codeSent events ------------------------------------------------------------------------ */

/* A log sink that counts codeSent events, which the engine tells once the outcome is in the store,
 * and marks the thread that tells them (tu_mark_thread). */
typedef struct tu_sent {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int sent;
} tu_sent;

void tu_sent_init(tu_sent *s);
void tu_sent_destroy(tu_sent *s);
/* The phoneauth_log_sink to install with ctx = the tu_sent. */
void tu_sent_sink(void *ctx, const char *event_json);
/* Waits until at least n codeSent events were told; returns how many were. */
int tu_sent_wait(tu_sent *s, int n, int timeout_ms);

/* Finds a run of exactly `len` digits in body; copies it to out (size >= len + 1). */
int tu_extract_code(const char *body, int len, char *out);

/* ---- whole flows ---------------------------------------------------------------------------- */

/* verifyPhoneNumber + wait for the SMS + credential. Returns the credential object (new
 * reference) or NULL after recording the failure. If vid_out is not NULL it receives a malloc'ed
 * copy of the verification ID. */
json_t *tu_sms_credential(phoneauth_engine *e, tu_sms *s, const char *phone, char **vid_out);

/* tu_sms_credential + signInWithCredential. Returns the sign-in result (new reference) or NULL. */
json_t *tu_sms_sign_in(phoneauth_engine *e, tu_sms *s, const char *phone);

#endif /* PHONEAUTH_TESTUTIL_H */
