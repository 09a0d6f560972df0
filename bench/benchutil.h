/*
 * benchutil.h: what the C benchmark drivers signin_bench.c (SQLite) and pg_bench.c (PostgreSQL)
 * share: clocks and CPU time, settings from the environment, latency percentiles, failures
 * counted by kind, the test phone numbers, and one complete sign-in through libphoneauth's C ABI
 * with the SMS mailbox it waits on (the engine's delivery thread posts each code to it through
 * sms_sender, keyed by verificationId).
 */
#ifndef BENCHUTIL_H
#define BENCHUTIL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "phoneauth.h"

#define SMS_TIMEOUT_SECONDS 10 /* how long a flow waits for its SMS */
#define MAX_ERROR_KINDS 32     /* an error table keeps this many kinds; later new ones are dropped */

/* The program's name, the prefix of its messages on stderr: each program defines it. */
extern const char bench_name[];

/* ------------------------------------------------------------------------------------------ */
/* Small helpers.                                                                               */

/* CLOCK_MONOTONIC in ns: system-wide, so comparable across processes. */
uint64_t now_ns(void);
/* User + system CPU time of this process (all its threads), in seconds. */
double cpu_seconds(void);
/* Prints "<bench_name>: <what>" on stderr and exits with status 1. */
_Noreturn void die(const char *what);
/* The positive integer in $name, else fallback (a value that is not one is reported and ignored). */
long env_long(const char *name, long fallback);
double round2(double x);
/* The n bytes of b as 2n lowercase hex digits and a NUL in out. */
void hex(const unsigned char *b, size_t n, char *out);
/* Flow number i's phone number: +1 650 2xx xxxx, 1,000,000 distinct numbers that libphonenumber
 * takes as valid (US, 650, exchange 2xx). */
void phone_number(long i, char *buf, size_t size);
/* Prints doc on stdout (indented, keys in order) and frees it. */
void print_json(json_t *doc);

/* ------------------------------------------------------------------------------------------ */
/* Latencies.                                                                                   */

/* {"count", "p50", "p90", "p99", "max"} of the n values in ns, as µs (nearest rank); sorts v. */
json_t *percentiles(uint64_t *v, size_t n);
/* The median of the n values in ns, as µs; sorts v. */
double median_us(uint64_t *v, size_t n);

/* ------------------------------------------------------------------------------------------ */
/* Failures, counted by kind (a key such as "step:code(status)"), with the first one's text.    */

typedef struct {
    char key[80];
    long count;
    char sample[256];
} error_kind;

typedef struct {
    error_kind kinds[MAX_ERROR_KINDS];
    int n;
} error_table;

/* Adds count failures of kind key; sample (may be NULL) is kept for a kind not seen before. */
void add_error(error_table *t, const char *key, long count, const char *sample);
/* A failed call: `where` is the step, out_json the engine's error object (may be NULL); the kind
 * is "where:code(status)", code read from out_json. */
void record_error(error_table *t, const char *where, int status, const char *out_json);
/* Sets "errors" (count by kind) on obj, and "errorSamples" (text by kind) when there are any. */
void set_errors_json(json_t *obj, const error_table *t);

/* ------------------------------------------------------------------------------------------ */
/* The SMS mailbox (one per process) and the flow.                                             */

/* The SMS sender to give phoneauth_set_sms_sender: runs on the engine's delivery thread, parses
 * the message JSON and posts its code to the mailbox under its verificationId. */
int sms_sender(void *ctx, const char *message_json);
/* Since the last clear_mailbox: messages handed to sms_sender, those it could not read, and
 * those posted but not taken yet. */
void mailbox_counts(long *delivered, long *unparsable, long *pending);
/* Drops every posted code and zeroes the counts. */
void clear_mailbox(void);

/* Opens an engine with `config` (taken: it is freed) and sms_sender as its SMS sender; exits when
 * it cannot. */
phoneauth_engine *open_engine_json(json_t *config);

/* The engine's getStorageStatistics result (the caller frees it with json_decref); exits on failure. */
json_t *storage_statistics(phoneauth_engine *e);
/* The tenant the flows run in (BENCH_TENANT=1), or NULL for the default pool. */
const char *flow_tenant(void);

/* When the steps of one flow ended (now_ns). */
typedef struct {
    uint64_t start;      /* verifyPhoneNumber called */
    uint64_t verified;   /* verifyPhoneNumber returned */
    uint64_t code;       /* the code is in hand (the SMS wait is over) */
    uint64_t credential; /* credential returned */
    uint64_t signed_in;  /* signInWithCredential returned */
    uint64_t delivered;  /* sms_sender got the SMS (its delivery) */
    int new_user;        /* signInWithCredential said isNewUser */
} flow_times;

enum { FLOW_OK = 0, FLOW_FAILED = -1, FLOW_NO_SMS = -2 };

/* One complete flow for flow number i: verifyPhoneNumber (phone_number(i)) -> wait for its code in
 * the mailbox -> credential -> signInWithCredential. FLOW_OK with *t filled; else the failure is
 * recorded in `errors` and it returns FLOW_NO_SMS when no code came within SMS_TIMEOUT_SECONDS,
 * FLOW_FAILED otherwise. */
int signin_flow(phoneauth_engine *engine, long i, error_table *errors, flow_times *t);

#endif
