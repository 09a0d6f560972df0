/*
 * fuzz_common.h: what the fuzz targets of libphoneauth share (included by fuzz_call.c and
 * fuzz_open.c; everything is static).
 *
 *   fz_fail(...)          prints a contract violation and aborts (libFuzzer saves the input)
 *   fz_check_output(...)  the output contract of phoneauth_call / phoneauth_open's error_json
 *   fz_tmpdir() / fz_rmtree()  a scratch folder under $TMPDIR (or /tmp) and its removal
 *
 * The canary: any string containing FZ_CANARY ("s3cr3t!", not a plain name since it has '!')
 * stands for a secret. docs/API.md: nothing the caller sent is quoted back in an error's message
 * or details unless it is a known parameter name or a plain name ([A-Za-z][A-Za-z0-9_.-]{0,63}),
 * so the canary must never appear in an error object (except in data the error reports about
 * stored things: the hints of secondFactorRequired, which hold display names the caller set).
 */
#ifndef PHONEAUTH_FUZZ_COMMON_H
#define PHONEAUTH_FUZZ_COMMON_H

#include <phoneauth.h>
#include <jansson.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FZ_CANARY "s3cr3t!"

/* The output pointer's value before a call: the library must replace it. */
static char fz_sentinel_byte;
#define FZ_SENTINEL (&fz_sentinel_byte)

__attribute__((noreturn, format(printf, 1, 2))) static void fz_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("\n==== phoneauth fuzz: CONTRACT VIOLATION: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
    fflush(stderr);
    abort();
}

/* Every status number the header defines, and PHONEAUTH_OK. */
static int fz_known_status(int st) {
    static const int known[] = {
        PHONEAUTH_OK,
        PHONEAUTH_ERR_INVALID_CUSTOM_TOKEN, PHONEAUTH_ERR_CUSTOM_TOKEN_MISMATCH,
        PHONEAUTH_ERR_INVALID_CREDENTIAL, PHONEAUTH_ERR_USER_DISABLED,
        PHONEAUTH_ERR_OPERATION_NOT_ALLOWED, PHONEAUTH_ERR_TOO_MANY_REQUESTS,
        PHONEAUTH_ERR_USER_NOT_FOUND, PHONEAUTH_ERR_INVALID_USER_TOKEN,
        PHONEAUTH_ERR_USER_TOKEN_EXPIRED, PHONEAUTH_ERR_MISSING_PHONE_NUMBER,
        PHONEAUTH_ERR_INVALID_PHONE_NUMBER, PHONEAUTH_ERR_MISSING_VERIFICATION_CODE,
        PHONEAUTH_ERR_INVALID_VERIFICATION_CODE, PHONEAUTH_ERR_MISSING_VERIFICATION_ID,
        PHONEAUTH_ERR_INVALID_VERIFICATION_ID, PHONEAUTH_ERR_SESSION_EXPIRED,
        PHONEAUTH_ERR_QUOTA_EXCEEDED, PHONEAUTH_ERR_MISSING_APP_CREDENTIAL,
        PHONEAUTH_ERR_INVALID_APP_CREDENTIAL, PHONEAUTH_ERR_MISSING_APP_TOKEN,
        PHONEAUTH_ERR_APP_NOT_VERIFIED, PHONEAUTH_ERR_CAPTCHA_CHECK_FAILED,
        PHONEAUTH_ERR_REQUIRES_RECENT_LOGIN, PHONEAUTH_ERR_PROVIDER_ALREADY_LINKED,
        PHONEAUTH_ERR_NO_SUCH_PROVIDER, PHONEAUTH_ERR_USER_MISMATCH,
        PHONEAUTH_ERR_CREDENTIAL_ALREADY_IN_USE, PHONEAUTH_ERR_SECOND_FACTOR_REQUIRED,
        PHONEAUTH_ERR_MISSING_MULTI_FACTOR_SESSION, PHONEAUTH_ERR_MISSING_MULTI_FACTOR_INFO,
        PHONEAUTH_ERR_INVALID_MULTI_FACTOR_SESSION, PHONEAUTH_ERR_MULTI_FACTOR_INFO_NOT_FOUND,
        PHONEAUTH_ERR_SECOND_FACTOR_ALREADY_ENROLLED,
        PHONEAUTH_ERR_MAXIMUM_SECOND_FACTOR_COUNT_EXCEEDED, PHONEAUTH_ERR_UNSUPPORTED_FIRST_FACTOR,
        PHONEAUTH_ERR_INTERNAL, PHONEAUTH_ERR_INVALID_ARGUMENT,
        PHONEAUTH_ERR_INVALID_CONFIGURATION, PHONEAUTH_ERR_UNKNOWN_METHOD, PHONEAUTH_ERR_STORAGE,
        PHONEAUTH_ERR_INVALID_ID_TOKEN, PHONEAUTH_ERR_ID_TOKEN_REVOKED,
        PHONEAUTH_ERR_PHONE_NUMBER_EXISTS,
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i] == st) return 1;
    return 0;
}

/* The first 1500 bytes of a text, for failure messages. */
static const char *fz_clip(const char *text) {
    static char buf[1600];
    if (!text) return "(null)";
    size_t n = strlen(text);
    if (n < 1500) return text;
    snprintf(buf, sizeof buf, "%.1500s...(%zu bytes)", text, n);
    return buf;
}

/* Whether an internalError is a finding (default) or tolerated (FUZZ_ALLOW_INTERNAL=1). */
static int fz_allow_internal(void) {
    static int v = -1;
    if (v < 0) {
        const char *s = getenv("FUZZ_ALLOW_INTERNAL");
        v = s && *s == '1';
    }
    return v;
}

/*
 * Checks the output of a call that returned `st` and wrote `out` (the caller frees out).
 * what: the call, for messages. secrets: values the input carried that are secrets (tokens,
 * proofs, keys); none of them may appear in an error object. Returns the parsed object (new
 * reference).
 */
static json_t *fz_check_output(const char *what, int st, const char *out, const char *const *secrets,
                               size_t n_secrets) {
    if (out == FZ_SENTINEL) fz_fail("%s: the output pointer was not set (status %d)", what, st);
    if (!out) fz_fail("%s: the output is NULL (status %d)", what, st);
    if (!fz_known_status(st)) fz_fail("%s: unknown status %d; output %s", what, st, fz_clip(out));
    json_error_t jerr;
    json_t *res = json_loads(out, JSON_REJECT_DUPLICATES, &jerr);
    if (!res) fz_fail("%s: the output is not valid JSON (%s at %d:%d): %s", what, jerr.text, jerr.line, jerr.column, fz_clip(out));
    if (!json_is_object(res)) fz_fail("%s: the output is not a JSON object: %s", what, fz_clip(out));
    json_t *error = json_object_get(res, "error");
    if (st == PHONEAUTH_OK) {
        if (json_is_object(error)) fz_fail("%s: status 0 with an error object: %s", what, fz_clip(out));
        return res;
    }
    if (json_object_size(res) != 1 || !json_is_object(error))
        fz_fail("%s: status %d without a lone {\"error\": {...}}: %s", what, st, fz_clip(out));
    json_t *code = json_object_get(error, "code"), *status = json_object_get(error, "status");
    json_t *message = json_object_get(error, "message"), *details = json_object_get(error, "details");
    if (!json_is_string(code) || json_string_length(code) == 0)
        fz_fail("%s: error without a code: %s", what, fz_clip(out));
    if (!json_is_integer(status) || json_integer_value(status) != st)
        fz_fail("%s: error status is not the returned %d: %s", what, st, fz_clip(out));
    if (!json_is_string(message) || json_string_length(message) == 0)
        fz_fail("%s: error without a message: %s", what, fz_clip(out));
    if (!json_is_object(details)) fz_fail("%s: error details are not an object: %s", what, fz_clip(out));
    if (json_object_size(error) != 4) fz_fail("%s: error object has other keys: %s", what, fz_clip(out));
    const char *summary = phoneauth_strerror(st);
    if (!summary || strncmp(summary, json_string_value(code), json_string_length(code)) != 0)
        fz_fail("%s: strerror(%d) = \"%s\" does not start with the code: %s", what, st, summary ? summary : "(null)", fz_clip(out));
    if (st == PHONEAUTH_ERR_INTERNAL && !fz_allow_internal())
        fz_fail("%s: internalError (docs/API.md: \"a bug\"): %s", what, fz_clip(out));

    /* What the caller may have sent and the error must not quote: the message, and the details
     * except data about stored things (secondFactorRequired's hints) and credentialAlreadyInUse's
     * temporaryProof, the one secret an error carries on purpose. */
    json_t *checked = json_deep_copy(details);
    json_object_del(checked, "hints");
    if (st == PHONEAUTH_ERR_CREDENTIAL_ALREADY_IN_USE) json_object_del(checked, "temporaryProof");
    char *details_text = json_dumps(checked, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(checked);
    const char *msg = json_string_value(message);
    if (strstr(msg, FZ_CANARY) || strstr(details_text, FZ_CANARY))
        fz_fail("%s: the error quotes the canary \"%s\" (a secret-looking input): %s", what, FZ_CANARY, fz_clip(out));
    for (size_t i = 0; i < n_secrets; i++) {
        if (strstr(msg, secrets[i]) || strstr(details_text, secrets[i]))
            fz_fail("%s: the error quotes a secret of the input (%.12s...): %s", what, secrets[i], fz_clip(out));
    }
    free(details_text);
    return res;
}

/* ---- scratch folders --------------------------------------------------------------------- */

static char *fz_tmpdir(const char *tag) {
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char *path = NULL;
    if (asprintf(&path, "%s/phoneauth-%s-XXXXXX", base, tag) < 0 || !mkdtemp(path)) {
        perror("mkdtemp");
        exit(2);
    }
    return path;
}

static void fz_rmtree(const char *path) {
    DIR *d = opendir(path);
    if (d) {
        struct dirent *ent;
        while ((ent = readdir(d))) {
            if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, "..")) continue;
            char *child = NULL;
            if (asprintf(&child, "%s/%s", path, ent->d_name) < 0) continue;
            struct stat st;
            if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode)) fz_rmtree(child);
            else unlink(child);
            free(child);
        }
        closedir(d);
    }
    rmdir(path);
}

#endif /* PHONEAUTH_FUZZ_COMMON_H */
