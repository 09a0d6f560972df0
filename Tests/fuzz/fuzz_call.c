/*
 * fuzz_call.c: libFuzzer target for phoneauth_call (method name + parameters).
 *
 * Input: one or more calls separated by a line "----" (at most FZ_MAX_CALLS). Each call is the
 * method name on the first line and the parameters' JSON text after it; without a newline the
 * parameters are NULL. Prefixes of the method name (not sent): '*' runs it on engine B, '?'
 * passes out_json NULL. Example:
 *
 *     verifyPhoneNumber
 *     {"phoneNumber": "+16505551234"}
 *     ----
 *     signInWithCredential
 *     {"credential": {"verificationId": "$verificationId", "verificationCode": "123456"}}
 *
 * Placeholders: "$name" in the parameters is replaced by the last string named so in an earlier
 * result of the same input (idToken, refreshToken, verificationId, session, sessionInfo,
 * secretKey, temporaryProof, receipt, secret, customToken, uid, hint (a hints[].uid),
 * enrollmentId (an enrolledFactors[].uid), eventId, captchaToken, pageToken, url), by the
 * current TOTP code of the last secretKey ("$totp"; "$totpNext" is the next step's, as a
 * step is accepted only once per factor), or by the code of the SMS sent for
 * $verificationId ("$smsCode", waited for up to 50 ms when getVerificationStatus says one is
 * coming), or by a new word ("$nonce": n1, n2, ...,
 * for single-use captcha tokens and new uids). That lets the fuzzer reach what is
 * behind a sign-in without guessing tokens. The bag starts empty for every input; the database
 * does not (it is replaced every FUZZ_RESET_EVERY inputs, default 20000).
 *
 * Engines (SQLite in a scratch folder; the SMS sender, log sink, push sender and captcha
 * verifier are callbacks in this process):
 *   A: no send limits, resendAfterSeconds 0, every number type, app verification not enforced.
 *   B: the default limits (a few lowered), app verification enforced, resendAfterSeconds 60.
 * Both have the test numbers below and a captcha page.
 *
 * Checks on every call (fz_check_output): out set, a JSON object, an error is exactly
 * {"error": {code, status == return, message, details: {}}}, the status is one the header
 * defines, no internalError, and no error quotes the canary or a token the input carried.
 * The callbacks check the JSON they receive. FUZZ_VERBOSE=1 prints every call and its output.
 */
#include "fuzz_common.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define FZ_MAX_CALLS 16

/* ---- the bag of values from earlier results --------------------------------------------- */

static const char *const k_names[] = {
    "idToken", "refreshToken", "verificationId", "session", "sessionInfo", "secretKey",
    "temporaryProof", "receipt", "secret", "customToken", "uid", "hint", "enrollmentId",
    "eventId", "captchaToken", "pageToken", "url",
};
#define N_NAMES (sizeof k_names / sizeof k_names[0])
/* Which of them are secrets the library must never quote in an error. */
static const char *const k_secret_names[] = {
    "idToken", "refreshToken", "sessionInfo", "secretKey", "temporaryProof", "secret",
    "customToken", "session", "captchaToken",
};
static char *g_bag[N_NAMES];

static int name_index(const char *name, size_t len) {
    for (size_t i = 0; i < N_NAMES; i++)
        if (strlen(k_names[i]) == len && !memcmp(k_names[i], name, len)) return (int)i;
    return -1;
}

static void bag_set(const char *name, const char *value) {
    int i = name_index(name, strlen(name));
    if (i < 0) return;
    free(g_bag[i]);
    g_bag[i] = strdup(value);
}

static const char *bag_get(const char *name) {
    int i = name_index(name, strlen(name));
    return i < 0 ? NULL : g_bag[i];
}

static void bag_clear(void) {
    for (size_t i = 0; i < N_NAMES; i++) {
        free(g_bag[i]);
        g_bag[i] = NULL;
    }
}

/* Records the strings of a result: key names from k_names; "uid" by where it is. */
static void capture(json_t *v, const char *parent) {
    if (json_is_object(v)) {
        const char *k;
        json_t *child;
        json_object_foreach(v, k, child) {
            if (json_is_string(child)) {
                const char *s = json_string_value(child);
                if (!strcmp(k, "uid")) {
                    if (parent && !strcmp(parent, "hints")) bag_set("hint", s);
                    else if (parent && !strcmp(parent, "enrolledFactors")) bag_set("enrollmentId", s);
                    else if (!parent || !strcmp(parent, "user") || !strcmp(parent, "users")) bag_set("uid", s);
                } else {
                    bag_set(k, s);
                }
            } else {
                capture(child, k);
            }
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *child;
        json_array_foreach(v, i, child) capture(child, parent);
    }
}

/* ---- SMS sender: keeps the last codes by verification ID -------------------------------- */

#define SMS_RING 64
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char vid[SMS_RING][128];
    char code[SMS_RING][16];
    unsigned next;
    unsigned long calls;
} g_sms = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {{0}}, {{0}}, 0, 0};

static int sms_sender(void *ctx, const char *message_json) {
    (void)ctx;
    json_t *m = message_json ? json_loads(message_json, JSON_REJECT_DUPLICATES, NULL) : NULL;
    const char *to = json_string_value(json_object_get(m, "to"));
    const char *body = json_string_value(json_object_get(m, "body"));
    const char *vid = json_string_value(json_object_get(m, "verificationId"));
    const char *lang = json_string_value(json_object_get(m, "languageCode"));
    if (!to || !body || !vid || !lang || to[0] != '+')
        fz_fail("SMS sender got a malformed message: %s", fz_clip(message_json));
    /* The code: the first run of 6 to 10 digits in the body. */
    char code[16] = "";
    for (const char *p = body; *p; p++) {
        size_t n = strspn(p, "0123456789");
        if (n >= 6 && n <= 10) {
            memcpy(code, p, n);
            code[n] = 0;
            break;
        }
        if (n) p += n - 1;
    }
    if (!code[0]) fz_fail("SMS body without a code: %s", fz_clip(message_json));
    size_t tl = strlen(to);
    int fail = tl >= 2 && !strcmp(to + tl - 2, "99"); /* numbers ending in 99: delivery fails */
    pthread_mutex_lock(&g_sms.mu);
    unsigned slot = g_sms.next++ % SMS_RING;
    snprintf(g_sms.vid[slot], sizeof g_sms.vid[slot], "%s", vid);
    snprintf(g_sms.code[slot], sizeof g_sms.code[slot], "%s", code);
    g_sms.calls++;
    pthread_cond_broadcast(&g_sms.cv);
    pthread_mutex_unlock(&g_sms.mu);
    json_decref(m);
    return fail;
}

static phoneauth_engine *g_engines[2];

/* Whether an SMS is on its way for vid: getVerificationStatus says "none" for test numbers
 * (and fails for what is not a verification), where waiting would only slow the fuzzer down. */
static int sms_expected(phoneauth_engine *engine, const char *vid) {
    json_t *params = json_pack("{s:s}", "verificationId", vid);
    char *text = json_dumps(params, JSON_COMPACT), *out = NULL;
    json_decref(params);
    int st = phoneauth_call(engine, "getVerificationStatus", text, &out);
    free(text);
    json_t *res = out ? json_loads(out, 0, NULL) : NULL;
    const char *delivery = json_string_value(json_object_get(res, "delivery"));
    int expected = st == PHONEAUTH_OK && delivery && strcmp(delivery, "none") != 0;
    json_decref(res);
    phoneauth_free(out);
    return expected;
}

/* The code sent for vid, waiting up to 50 ms for the delivery thread if one is coming. */
static int sms_code_for(phoneauth_engine *engine, const char *vid, char *out, size_t size) {
    int waited = 0;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    static long wait_ms = -1;
    if (wait_ms < 0) wait_ms = getenv("FUZZ_SMS_WAIT_MS") ? atol(getenv("FUZZ_SMS_WAIT_MS")) : 50;
    deadline.tv_nsec += wait_ms * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    int found = 0;
    pthread_mutex_lock(&g_sms.mu);
    for (;;) {
        for (unsigned i = 0; i < SMS_RING && !found; i++) {
            if (!strcmp(g_sms.vid[i], vid)) {
                snprintf(out, size, "%s", g_sms.code[i]);
                found = 1;
            }
        }
        if (found) break;
        if (!waited) {
            pthread_mutex_unlock(&g_sms.mu);
            int expected = sms_expected(engine, vid);
            pthread_mutex_lock(&g_sms.mu);
            if (!expected) break;
            waited = 1;
            continue;
        }
        if (pthread_cond_timedwait(&g_sms.cv, &g_sms.mu, &deadline) != 0) break;
    }
    pthread_mutex_unlock(&g_sms.mu);
    return found;
}

/* ---- the other callbacks ------------------------------------------------------------------ */

static void log_sink(void *ctx, const char *event_json) {
    (void)ctx;
    json_t *e = event_json ? json_loads(event_json, JSON_REJECT_DUPLICATES, NULL) : NULL;
    if (!json_is_object(e) || !json_is_string(json_object_get(e, "event")) || !json_is_string(json_object_get(e, "time")))
        fz_fail("log sink got a malformed event: %s", fz_clip(event_json));
    json_decref(e);
}

/* Runs on the thread of verifyClient (this one): the receipt and secret go to the bag. */
static int push_sender(void *ctx, const char *message_json) {
    (void)ctx;
    json_t *m = message_json ? json_loads(message_json, JSON_REJECT_DUPLICATES, NULL) : NULL;
    const char *token = json_string_value(json_object_get(m, "appToken"));
    json_t *pa = json_object_get(json_object_get(m, "payload"), "phoneauth");
    const char *receipt = json_string_value(json_object_get(pa, "receipt"));
    const char *secret = json_string_value(json_object_get(pa, "secret"));
    if (!token || !receipt || !secret || !json_is_string(json_object_get(m, "tokenType")))
        fz_fail("push sender got a malformed message: %s", fz_clip(message_json));
    bag_set("receipt", receipt);
    bag_set("secret", secret);
    int fail = strstr(token, "fail") != NULL;
    json_decref(m);
    return fail;
}

/* Answers by the token's first letters: ok (success), low (score 0.1), no (refused), err (cannot
 * check), junk (not the JSON asked for), long (fills the whole buffer); else success, score 0.9. */
static int captcha_verifier(void *ctx, const char *request_json, char *response, size_t size) {
    (void)ctx;
    json_t *r = request_json ? json_loads(request_json, JSON_REJECT_DUPLICATES, NULL) : NULL;
    const char *token = json_string_value(json_object_get(r, "token"));
    if (!token) fz_fail("captcha verifier got a malformed request: %s", fz_clip(request_json));
    if (!response || size < 2) fz_fail("captcha verifier got no room for its answer (%zu)", size);
    const char *answer = "{\"success\": true, \"score\": 0.9}";
    int rc = 0;
    if (!strncmp(token, "low", 3)) answer = "{\"success\": true, \"score\": 0.1}";
    else if (!strncmp(token, "no", 2)) answer = "{\"success\": false}";
    else if (!strncmp(token, "err", 3)) rc = 1;
    else if (!strncmp(token, "junk", 4)) answer = "{\"success\": \"yes\", \"score\": [1]}";
    if (!strncmp(token, "long", 4)) {
        memset(response, ' ', size - 1);
        memcpy(response, "{\"success\":true}", 16);
        response[size - 1] = 0;
    } else {
        snprintf(response, size, "%s", answer);
    }
    json_decref(r);
    return rc;
}

/* ---- TOTP (RFC 6238, SHA-1, 6 digits, 30 s) from a base32 secret ------------------------- */

static int totp_at(const char *b32, int step_offset, char *out, size_t size) {
    unsigned char key[128];
    size_t n = 0;
    unsigned buf = 0;
    int bits = 0;
    for (const char *p = b32; *p && n < sizeof key; p++) {
        int v;
        if (*p >= 'A' && *p <= 'Z') v = *p - 'A';
        else if (*p >= 'a' && *p <= 'z') v = *p - 'a';
        else if (*p >= '2' && *p <= '7') v = *p - '2' + 26;
        else continue;
        buf = (buf << 5) | (unsigned)v;
        bits += 5;
        if (bits >= 8) {
            key[n++] = (unsigned char)(buf >> (bits - 8));
            bits -= 8;
        }
    }
    if (!n) return 0;
    uint64_t counter = (uint64_t)time(NULL) / 30 + (uint64_t)(int64_t)step_offset;
    unsigned char msg[8];
    for (int i = 7; i >= 0; i--) {
        msg[i] = (unsigned char)(counter & 0xff);
        counter >>= 8;
    }
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned mac_len = 0;
    if (!HMAC(EVP_sha1(), key, (int)n, msg, sizeof msg, mac, &mac_len) || mac_len < 20) return 0;
    int off = mac[mac_len - 1] & 0x0f;
    uint32_t bin = ((uint32_t)(mac[off] & 0x7f) << 24) | ((uint32_t)mac[off + 1] << 16) |
                   ((uint32_t)mac[off + 2] << 8) | mac[off + 3];
    snprintf(out, size, "%06u", bin % 1000000u);
    return 1;
}

/* ---- placeholders ------------------------------------------------------------------------ */

typedef struct {
    char *data;
    size_t len, cap;
} strbuf;

static void sb_add(strbuf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

/* Appends s as the inside of a JSON string. */
static void sb_add_escaped(strbuf *b, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            sb_add(b, e, 2);
        } else if (c < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", c);
            sb_add(b, e, 6);
        } else {
            sb_add(b, (const char *)&c, 1);
        }
    }
}

#define MAX_SECRETS 32

/* Replaces the placeholders of params; the secret values used go to secrets[]. */
static char *expand(phoneauth_engine *engine, const char *params, const char **secrets, size_t *n_secrets) {
    strbuf b = {0};
    sb_add(&b, "", 0);
    const char *p = params;
    while (*p) {
        const char *dollar = strchr(p, '$');
        if (!dollar) {
            sb_add(&b, p, strlen(p));
            break;
        }
        sb_add(&b, p, (size_t)(dollar - p));
        const char *name = dollar + 1, *end = name;
        while ((*end >= 'A' && *end <= 'Z') || (*end >= 'a' && *end <= 'z')) end++;
        size_t len = (size_t)(end - name);
        char value[64];
        const char *v = NULL;
        if ((len == 4 && !memcmp(name, "totp", 4)) || (len == 8 && !memcmp(name, "totpNext", 8))) {
            const char *key = bag_get("secretKey");
            if (key && totp_at(key, len == 8, value, sizeof value)) v = value;
        } else if (len == 5 && !memcmp(name, "nonce", 5)) {
            static unsigned long nonce;
            snprintf(value, sizeof value, "n%lu", ++nonce);
            v = value;
        } else if (len == 7 && !memcmp(name, "smsCode", 7)) {
            const char *vid = bag_get("verificationId");
            if (vid && sms_code_for(engine, vid, value, sizeof value)) v = value;
        } else {
            int i = name_index(name, len);
            if (i >= 0) {
                v = g_bag[i];
                for (size_t k = 0; v && k < sizeof k_secret_names / sizeof k_secret_names[0]; k++)
                    if (!strcmp(k_secret_names[k], k_names[i]) && strlen(v) >= 16 && *n_secrets < MAX_SECRETS)
                        secrets[(*n_secrets)++] = v;
            }
        }
        if (v) {
            sb_add_escaped(&b, v);
            p = end;
        } else {
            sb_add(&b, "$", 1);
            p = name;
        }
    }
    return b.data;
}

/* ---- engines ----------------------------------------------------------------------------- */

static char *g_dir;
static unsigned long g_generation, g_inputs;

static const char *k_common_config =
    "\"testPhoneNumbers\": {\"+16505551234\": \"123456\", \"+16505550000\": \"654321\","
    " \"+447400123456\": \"111111\", \"+33612345678\": \"222222\"},"
    " \"captcha\": {\"pageUrl\": \"https://captcha.example.com/page\", \"minScore\": 0.5},"
    " \"sms\": {\"provider\": \"callback\", \"maxAttempts\": 3, \"retryBackoffMs\": 10}";

static const char *k_config_a =
    "\"resendAfterSeconds\": 0, \"phoneNumberTypes\": {\"deny\": []},"
    " \"appVerification\": {\"enforce\": false},"
    " \"quotas\": {\"smsPerNumberPerHour\": 0, \"smsPerIpPerHour\": 0, \"smsPerProjectPerDay\": 0,"
    " \"regionBurstPerHour\": 0, \"wrongCodesPerIpPer5Minutes\": 0, \"appChecksPerIpPerHour\": 0,"
    " \"maxConsecutiveFailures\": 0}";

static const char *k_config_b =
    "\"appVerification\": {\"enforce\": true, \"receiptTtlSeconds\": 60},"
    " \"quotas\": {\"smsPerRegionPerDay\": {\"GB\": 50}, \"regionBurstPerHour\": 200,"
    " \"maxConsecutiveFailures\": 10, \"lockoutSeconds\": 60},"
    " \"smsRegionPolicy\": {\"allowByDefault\": {\"disallowedRegions\": [\"NG\"]}},"
    " \"codeLength\": 8, \"signingAlgorithm\": \"EdDSA\", \"mfa\": {\"maxFactors\": 3}";

static void open_engines(void) {
    const char *extra[2] = {k_config_a, k_config_b};
    for (int i = 0; i < 2; i++) {
        char *config = NULL, *error = NULL;
        if (asprintf(&config, "{\"database\": \"%s/%c-%lu.db\", %s, %s}", g_dir, 'a' + i, g_generation,
                     k_common_config, extra[i]) < 0)
            abort();
        g_engines[i] = phoneauth_open(config, &error);
        if (!g_engines[i]) {
            fprintf(stderr, "fuzz_call: phoneauth_open failed: %s\nconfig: %s\n", error ? error : "(no error)", config);
            exit(2);
        }
        free(config);
        if (phoneauth_set_sms_sender(g_engines[i], sms_sender, NULL) ||
            phoneauth_set_log_sink(g_engines[i], log_sink, NULL) ||
            phoneauth_set_push_sender(g_engines[i], push_sender, NULL) ||
            phoneauth_set_captcha_verifier(g_engines[i], captcha_verifier, NULL)) {
            fprintf(stderr, "fuzz_call: installing the callbacks failed\n");
            exit(2);
        }
    }
}

static void close_engines(void) {
    for (int i = 0; i < 2; i++) {
        phoneauth_close(g_engines[i]);
        g_engines[i] = NULL;
    }
    /* The database files of this generation. */
    DIR *d = opendir(g_dir);
    if (d) {
        struct dirent *ent;
        while ((ent = readdir(d))) {
            if (ent->d_name[0] == '.') continue;
            char *path = NULL;
            if (asprintf(&path, "%s/%s", g_dir, ent->d_name) >= 0) unlink(path);
            free(path);
        }
        closedir(d);
    }
}

static void at_exit(void) {
    close_engines();
    bag_clear();
    fz_rmtree(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    unsetenv("PHONEAUTH_DATABASE_URL");
    unsetenv("PHONEAUTH_MASTER_KEY");
    g_dir = fz_tmpdir("fuzz-call");
    open_engines();
    atexit(at_exit);
    return 0;
}

/* ---- one call ---------------------------------------------------------------------------- */

static void run_call(char *text) {
    char *method = text, *params = NULL;
    char *nl = strchr(text, '\n');
    if (nl) {
        *nl = 0;
        params = nl + 1;
    }
    int engine = 0, null_out = 0;
    for (; *method == '*' || *method == '?'; method++) {
        if (*method == '*') engine = 1;
        else null_out = 1;
    }
    const char *secrets[MAX_SECRETS];
    size_t n_secrets = 0;
    char *expanded = params ? expand(g_engines[engine], params, secrets, &n_secrets) : NULL;
    /* Copies: the bag may change (the push sender) while the call runs. */
    char *secret_copies[MAX_SECRETS];
    for (size_t i = 0; i < n_secrets; i++) secret_copies[i] = strdup(secrets[i]);

    char *out = FZ_SENTINEL;
    int st = phoneauth_call(g_engines[engine], method, expanded, null_out ? NULL : &out);
    if (null_out) {
        if (!fz_known_status(st)) fz_fail("%s (out NULL): unknown status %d", method, st);
    } else {
        char what[128];
        snprintf(what, sizeof what, "%s%.100s", engine ? "engine B: " : "", method);
        json_t *res = fz_check_output(what, st, out, (const char *const *)secret_copies, n_secrets);
        static int verbose = -1;
        if (verbose < 0) verbose = getenv("FUZZ_VERBOSE") && *getenv("FUZZ_VERBOSE") == '1';
        if (verbose) fprintf(stderr, "%s %.200s -> %d %.300s\n", what, expanded ? expanded : "(NULL)", st, out);
        capture(res, NULL);
        json_decref(res);
        phoneauth_free(out);
    }
    for (size_t i = 0; i < n_secrets; i++) free(secret_copies[i]);
    free(expanded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16) return 0;
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = 0;
    bag_clear();
    char *p = buf;
    for (int n = 0; p && n < FZ_MAX_CALLS; n++) {
        char *next = strstr(p, "\n----\n");
        if (next) {
            *next = 0;
            next += 6;
        }
        run_call(p);
        p = next;
    }
    free(buf);
    bag_clear();

    static unsigned long reset_every;
    if (!reset_every) {
        const char *s = getenv("FUZZ_RESET_EVERY");
        reset_every = s && atol(s) > 0 ? (unsigned long)atol(s) : 20000;
    }
    if (++g_inputs % reset_every == 0) {
        close_engines();
        g_generation++;
        open_engines();
    }
    return 0;
}
