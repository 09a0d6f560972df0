/*
 * mfa.c: a phone second factor (SMS multi-factor authentication) with libphoneauth, from C.
 *
 *   1. sign in with a phone number (the first factor)
 *   2. enrol a second phone number as an SMS second factor (mfaEnrollStart + mfaEnrollFinalize)
 *   3. sign out
 *   4. sign in again: the engine answers secondFactorRequired with a session and hints
 *   5. pick a hint, verifyPhoneNumber with the hint and the session: the code goes to the
 *      enrolled number, which the app never learns
 *   6. credential + mfaResolveSignIn: tokens, whose ID token names the second factor
 *
 * Both numbers are test numbers (fixed codes, no SMS is sent), so no SMS sender is installed;
 * signin.c shows how real codes arrive. Build and run (after `make install`):
 *   cc mfa.c -o mfa $(pkg-config --cflags --libs phoneauth jansson)
 *   ./mfa /tmp/phoneauth-mfa-example.db
 *
 * Strings from libphoneauth are freed with phoneauth_free(), those from jansson with free().
 */
#include <phoneauth.h>
#include <jansson.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_NUMBER "+16505551234" /* signs in */
#define FIRST_CODE "123456"
#define SECOND_NUMBER "+16505555678" /* the second factor */
#define SECOND_CODE "654321"

/* Runs a method with parameters built by jansson (the reference is stolen). Returns the status;
 * *result gets the parsed output: the result, or {"error": {...}} (json_decref it). */
static int call(phoneauth_engine *engine, const char *method, json_t *params, json_t **result) {
    char *params_json = json_dumps(params, JSON_COMPACT);
    json_decref(params);
    char *out_json = NULL;
    int status = phoneauth_call(engine, method, params_json, &out_json);
    free(params_json);
    *result = out_json ? json_loads(out_json, 0, NULL) : NULL;
    phoneauth_free(out_json);
    return status;
}

/* Like call(), for a step that must succeed: prints the error and returns NULL otherwise. */
static json_t *must(phoneauth_engine *engine, const char *method, json_t *params) {
    json_t *result = NULL;
    int status = call(engine, method, params, &result);
    if (status == PHONEAUTH_OK) return result;
    json_t *error = json_object_get(result, "error");
    fprintf(stderr, "%s failed: status %d (%s): %s\n", method, status,
            json_string_value(json_object_get(error, "code")),
            json_string_value(json_object_get(error, "message")));
    json_decref(result);
    return NULL;
}

/* A string inside an object by a path of keys, e.g. get(r, "user", "uid", NULL); "" if absent. */
static const char *get(json_t *object, ...) {
    va_list keys;
    va_start(keys, object);
    for (const char *key; object && (key = va_arg(keys, const char *)) != NULL;)
        object = json_object_get(object, key);
    va_end(keys);
    return json_is_string(object) ? json_string_value(object) : "";
}

/* credential from a verification ID and its code: {"providerId": "phone", ...} (json_decref). */
static json_t *credential(phoneauth_engine *engine, const char *verification_id, const char *code) {
    json_t *r = must(engine, "credential", json_pack("{s:s, s:s}", "verificationId", verification_id,
                                                     "verificationCode", code));
    json_t *cred = json_incref(json_object_get(r, "credential"));
    json_decref(r);
    return cred;
}

/* First-factor sign-in with a test number. Returns the status of signInWithCredential (*result
 * as for call()), or -1 when a step before it failed (must() has said why). */
static int sign_in(phoneauth_engine *engine, json_t **result) {
    *result = NULL;
    json_t *v = must(engine, "verifyPhoneNumber", json_pack("{s:s}", "phoneNumber", FIRST_NUMBER));
    if (!v) return -1;
    json_t *cred = credential(engine, get(v, "verificationId", NULL), FIRST_CODE);
    json_decref(v);
    if (!cred) return -1;
    return call(engine, "signInWithCredential", json_pack("{s:o}", "credential", cred), result);
}

int main(int argc, char **argv) {
    const char *database = argc > 1 ? argv[1] : "phoneauth-mfa-example.db";
    int exit_code = 1;
    json_t *first = NULL, *enrolled = NULL, *r = NULL, *required = NULL, *resolved = NULL;

    json_t *config = json_pack("{s:s, s:{s:s, s:s}}", "database", database, "testPhoneNumbers",
                               FIRST_NUMBER, FIRST_CODE, SECOND_NUMBER, SECOND_CODE);
    char *config_json = json_dumps(config, JSON_COMPACT);
    json_decref(config);
    char *error_json = NULL;
    phoneauth_engine *engine = phoneauth_open(config_json, &error_json);
    free(config_json);
    if (!engine) {
        fprintf(stderr, "phoneauth_open failed: %s\n", error_json ? error_json : "?");
        phoneauth_free(error_json);
        return 1;
    }

    /* 1. First factor. (Run twice on one database, this user already has the factor: start
     * from a fresh file.) */
    int status = sign_in(engine, &first);
    if (status != PHONEAUTH_OK) {
        fprintf(stderr, "sign-in: status %d %s\n", status, get(first, "error", "code", NULL));
        goto out;
    }
    printf("signed in: uid %s\n", get(first, "user", "uid", NULL));

    /* 2. Enrol the second number. Needs a recent sign-in (mfa.recentSignInSeconds, 5 minutes). */
    const char *id_token = get(first, "idToken", NULL);
    r = must(engine, "mfaEnrollStart",
             json_pack("{s:s, s:s}", "idToken", id_token, "phoneNumber", SECOND_NUMBER));
    if (!r) goto out;
    json_t *cred = credential(engine, get(r, "verificationId", NULL), SECOND_CODE);
    json_decref(r);
    r = NULL;
    if (!cred) goto out;
    enrolled = must(engine, "mfaEnrollFinalize",
                    json_pack("{s:s, s:o, s:s}", "idToken", id_token, "credential", cred,
                              "displayName", "Work phone"));
    if (!enrolled) goto out;
    printf("enrolled %s as a second factor\n", SECOND_NUMBER);

    /* 3. Sign out. Enrolment returned the tokens of a new session; the first one stays valid
     * too, so both are signed out. */
    const char *refresh_tokens[] = {get(first, "refreshToken", NULL),
                                    get(enrolled, "refreshToken", NULL)};
    for (int i = 0; i < 2; i++) {
        r = must(engine, "signOut", json_pack("{s:s}", "refreshToken", refresh_tokens[i]));
        if (!r) goto out;
        json_decref(r);
        r = NULL;
    }
    printf("signed out\n");

    /* 4. The first factor alone is no longer enough. */
    status = sign_in(engine, &required);
    if (status != PHONEAUTH_ERR_SECOND_FACTOR_REQUIRED) {
        fprintf(stderr, "sign-in: expected secondFactorRequired, got status %d\n", status);
        goto out;
    }
    json_t *details = json_object_get(json_object_get(required, "error"), "details");
    const char *session = get(details, "session", NULL);

    /* 5. Pick a hint: the first SMS one. A real app lists them ("+*******5678, Work phone"). */
    json_t *hint = NULL, *h;
    size_t i;
    json_array_foreach(json_object_get(details, "hints"), i, h) {
        if (strcmp(get(h, "factorId", NULL), "phone") == 0) {
            hint = h;
            break;
        }
    }
    if (!hint) {
        fprintf(stderr, "no phone hint in %s\n", get(required, "error", "message", NULL));
        goto out;
    }
    printf("second factor required: %s (%s)\n", get(hint, "phoneNumber", NULL),
           get(hint, "displayName", NULL));
    r = must(engine, "verifyPhoneNumber",
             json_pack("{s:s, s:s}", "multiFactorHint", get(hint, "uid", NULL),
                       "multiFactorSession", session));
    if (!r) goto out;

    /* 6. The code of the second number (here fixed) completes the sign-in. */
    cred = credential(engine, get(r, "verificationId", NULL), SECOND_CODE);
    if (!cred) goto out;
    resolved = must(engine, "mfaResolveSignIn",
                    json_pack("{s:s, s:{s:s, s:o}}", "session", session, "assertion", "factorId",
                              "phone", "credential", cred));
    if (!resolved) goto out;
    json_decref(r);
    r = must(engine, "verifyIdToken",
             json_pack("{s:s}", "idToken", get(resolved, "idToken", NULL)));
    if (!r) goto out;
    const char *second = get(r, "claims", "firebase", "sign_in_second_factor", NULL);
    printf("signed in with two factors: uid %s, sign_in_second_factor %s\n",
           get(resolved, "user", "uid", NULL), second);
    if (strcmp(get(resolved, "user", "uid", NULL), get(first, "user", "uid", NULL)) != 0 ||
        strcmp(second, "phone") != 0) {
        fprintf(stderr, "unexpected user or second factor\n");
        goto out;
    }
    exit_code = 0;

out:
    json_decref(resolved);
    json_decref(required);
    json_decref(r);
    json_decref(enrolled);
    json_decref(first);
    phoneauth_close(engine);
    printf(exit_code == 0 ? "done\n" : "FAILED\n");
    return exit_code;
}
