/*
 * http_bench.c: complete phone sign-ins per second through phoneauthd over loopback HTTP, as
 * Firebase's iOS SDK makes them, to set next to signin_bench's in-process figure.
 *
 * Usage: http_bench URL FLOWS THREADS FIRST_INDEX
 *   URL is a phoneauthd in development mode (emulatorCompat: codes are kept, not sent). One flow =
 *   POST sendVerificationCode (a new number) -> GET the emulator's verificationCodes?sessionInfo=
 *   until the engine's delivery thread has handed the code over (the in-process flow's SMS wait)
 *   -> POST verifyPhoneNumber (signs in a new user). Each thread keeps one libcurl handle, so its
 *   connection stays open (keep-alive), and runs flows back to back until FLOWS are done.
 *
 * Output: one JSON object on stdout: threads, flows, ok, failed, seconds, flowsPerSecond,
 * cpuUsPerFlow (this client's own CPU), latencies of the flow and its three requests in µs.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <jansson.h>

#include "benchutil.h"

const char bench_name[] = "http_bench";

enum { L_SEND, L_CODE, L_SIGN_IN, L_FLOW, L_COUNT };
static const char *latency_names[L_COUNT] = {"sendVerificationCode", "codeWait", "verifyPhoneNumber", "flow"};

static const char *base_url;
static long next_index, end_index;
static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    uint64_t *lat[L_COUNT];
    size_t nlat;
    long ok, failed;
    error_table errors;
} worker;

typedef struct {
    char *data;
    size_t size;
} buffer;

static size_t collect(char *chunk, size_t size, size_t n, void *userdata) {
    buffer *b = userdata;
    size_t add = size * n;
    char *grown = realloc(b->data, b->size + add + 1);
    if (!grown) return 0;
    memcpy(grown + b->size, chunk, add);
    b->data = grown;
    b->size += add;
    b->data[b->size] = 0;
    return add;
}

/* One request on the thread's handle; returns the parsed JSON answer of a 200, else NULL. */
static json_t *request(CURL *curl, struct curl_slist *headers, const char *path, const char *body, long *status) {
    char url[512];
    snprintf(url, sizeof url, "%s%s", base_url, path);
    buffer answer = {0};
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
    if (body) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    } else {
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    }
    *status = 0;
    json_t *parsed = NULL;
    if (curl_easy_perform(curl) == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
        if (*status == 200 && answer.data) parsed = json_loads(answer.data, 0, NULL);
    }
    free(answer.data);
    return parsed;
}

static void fail(worker *w, const char *step, long status) {
    char key[64];
    snprintf(key, sizeof key, "%s(%ld)", step, status);
    add_error(&w->errors, key, 1, NULL);
    w->failed++;
}

static void *run(void *arg) {
    worker *w = arg;
    CURL *curl = curl_easy_init();
    if (!curl) die("curl_easy_init failed");
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 30L);
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Expect:");
    for (;;) {
        pthread_mutex_lock(&index_lock);
        long i = next_index < end_index ? next_index++ : -1;
        pthread_mutex_unlock(&index_lock);
        if (i < 0) break;
        char phone[32], body[512], path[256];
        long status;
        phone_number(i, phone, sizeof phone);
        uint64_t t0 = now_ns();
        snprintf(body, sizeof body, "{\"phoneNumber\": \"%s\"}", phone);
        json_t *sent = request(curl, headers, "/www.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode?key=bench", body, &status);
        const char *session = json_string_value(json_object_get(sent, "sessionInfo"));
        if (!session) { fail(w, "sendVerificationCode", status); json_decref(sent); continue; }
        uint64_t t1 = now_ns();
        char code[16] = "";
        snprintf(path, sizeof path, "/emulator/v1/projects/bench/verificationCodes?sessionInfo=%s", session);
        while (!code[0] && now_ns() - t1 < (uint64_t)SMS_TIMEOUT_SECONDS * 1000000000ull) {
            json_t *codes = request(curl, headers, path, NULL, &status);
            json_t *first = json_array_get(json_object_get(codes, "verificationCodes"), 0);
            if (first) snprintf(code, sizeof code, "%s", json_string_value(json_object_get(first, "code")));
            json_decref(codes);
            if (!code[0]) nanosleep(&(struct timespec){0, 100000}, NULL);
        }
        if (!code[0]) { fail(w, "codeWait", status); json_decref(sent); continue; }
        uint64_t t2 = now_ns();
        snprintf(body, sizeof body, "{\"sessionInfo\": \"%s\", \"code\": \"%s\"}", session, code);
        json_decref(sent);
        json_t *signed_in = request(curl, headers, "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPhoneNumber?key=bench", body, &status);
        int ok = json_string_value(json_object_get(signed_in, "idToken")) != NULL && json_is_true(json_object_get(signed_in, "isNewUser"));
        json_decref(signed_in);
        if (!ok) { fail(w, "verifyPhoneNumber", status); continue; }
        uint64_t t3 = now_ns();
        w->lat[L_SEND][w->nlat] = t1 - t0;
        w->lat[L_CODE][w->nlat] = t2 - t1;
        w->lat[L_SIGN_IN][w->nlat] = t3 - t2;
        w->lat[L_FLOW][w->nlat] = t3 - t0;
        w->nlat++;
        w->ok++;
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) die("usage: http_bench URL FLOWS THREADS FIRST_INDEX");
    base_url = argv[1];
    long flows = atol(argv[2]), threads = atol(argv[3]);
    next_index = atol(argv[4]);
    end_index = next_index + flows;
    if (flows <= 0 || threads <= 0 || threads > 64) die("FLOWS and THREADS must be positive (THREADS at most 64)");
    curl_global_init(CURL_GLOBAL_DEFAULT);
    worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    if (!workers || !ids) die("out of memory");
    for (long t = 0; t < threads; t++)
        for (int k = 0; k < L_COUNT; k++)
            if (!(workers[t].lat[k] = calloc((size_t)flows, sizeof(uint64_t)))) die("out of memory");
    double cpu0 = cpu_seconds();
    uint64_t start = now_ns();
    for (long t = 0; t < threads; t++) pthread_create(&ids[t], NULL, run, &workers[t]);
    for (long t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    double seconds = (now_ns() - start) / 1e9, cpu = cpu_seconds() - cpu0;

    long ok = 0, failed = 0;
    error_table errors = {0};
    uint64_t *all[L_COUNT];
    size_t n = 0;
    for (int k = 0; k < L_COUNT; k++)
        if (!(all[k] = calloc((size_t)flows, sizeof(uint64_t)))) die("out of memory");
    for (long t = 0; t < threads; t++) {
        ok += workers[t].ok;
        failed += workers[t].failed;
        for (int k = 0; k < L_COUNT; k++) memcpy(all[k] + n, workers[t].lat[k], workers[t].nlat * sizeof(uint64_t));
        n += workers[t].nlat;
        for (int e = 0; e < workers[t].errors.n; e++)
            add_error(&errors, workers[t].errors.kinds[e].key, workers[t].errors.kinds[e].count, NULL);
    }
    json_t *latency = json_object();
    for (int k = 0; k < L_COUNT; k++) json_object_set_new(latency, latency_names[k], percentiles(all[k], n));
    json_t *doc = json_pack("{s:i, s:i, s:i, s:i, s:f, s:f, s:f, s:o}", "threads", (int)threads, "flows", (int)flows, "ok", (int)ok,
                            "failed", (int)failed, "seconds", round2(seconds), "flowsPerSecond", round2(ok / seconds),
                            "cpuUsPerFlow", round2(ok ? cpu * 1e6 / ok : 0), "latencyUs", latency);
    set_errors_json(doc, &errors);
    print_json(doc);
    curl_global_cleanup();
    return failed ? 1 : 0;
}
