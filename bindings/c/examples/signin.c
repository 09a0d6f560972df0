/*
 * signin.c: a complete phone-number sign-in with libphoneauth, from C.
 *
 *   1. open an engine on a SQLite file
 *   2. install an SMS sender (here: a callback that keeps the message in memory)
 *   3. verifyPhoneNumber, wait for the SMS, read the code from it
 *   4. credential + signInWithCredential
 *   5. the same with a fictional test number (no SMS at all)
 *   6. refreshIdToken, verifyIdToken, signOut, and see the refresh token stop working
 *
 * Build and run (after `make install`):
 *   cc signin.c -o signin $(pkg-config --cflags --libs phoneauth jansson) -lpthread
 *   ./signin /tmp/phoneauth-example.db
 *
 * Every call takes its parameters as JSON text and gives back an int status plus a JSON string
 * (the result, or {"error": {...}}). The JSON is read and written here with jansson; any JSON
 * library does. Two kinds of strings, two ways to free them:
 *   - strings libphoneauth returns (out_json, error_json)  -> phoneauth_free()
 *   - strings jansson returns (json_dumps)                  -> free()
 */
#include <phoneauth.h>
#include <jansson.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Receiving SMS ------------------------------------------------------------------------------
 * The engine hands each SMS to a callback on its own delivery thread (never the thread that called
 * verifyPhoneNumber). A real application passes it to an SMS gateway and returns 0 on success, or
 * non-zero to have the engine retry later. This one keeps the last message and wakes main(). */
struct inbox {
    pthread_mutex_t lock;
    pthread_cond_t arrived;
    char *message_json; /* the last message received, or NULL */
};

static int sms_sender(void *ctx, const char *message_json) {
    struct inbox *inbox = ctx;
    /* message_json is only valid during this call: copy it. */
    char *copy = strdup(message_json);
    if (!copy) return 1; /* out of memory: ask the engine to retry */
    pthread_mutex_lock(&inbox->lock);
    free(inbox->message_json);
    inbox->message_json = copy;
    pthread_cond_signal(&inbox->arrived);
    pthread_mutex_unlock(&inbox->lock);
    return 0; /* delivered */
}

/* Waits up to `seconds` for a message about verification_id; returns it (free() it) or NULL. */
static char *wait_for_sms(struct inbox *inbox, const char *verification_id, int seconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += seconds;
    char *found = NULL;
    pthread_mutex_lock(&inbox->lock);
    for (;;) {
        if (inbox->message_json) {
            json_t *msg = json_loads(inbox->message_json, 0, NULL);
            const char *id = json_string_value(json_object_get(msg, "verificationId"));
            int ours = id && strcmp(id, verification_id) == 0;
            json_decref(msg);
            if (ours) {
                found = inbox->message_json;
                inbox->message_json = NULL;
                break;
            }
        }
        if (pthread_cond_timedwait(&inbox->arrived, &inbox->lock, &deadline) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&inbox->lock);
    return found;
}

/* The code is the run of `length` digits in the SMS body ("123456 is your verification code."). */
static int code_from_body(const char *body, int length, char *code, size_t code_size) {
    for (const char *p = body; p && *p;) {
        if (*p >= '0' && *p <= '9') {
            const char *start = p;
            while (*p >= '0' && *p <= '9') p++;
            if (p - start == length && (size_t)length < code_size) {
                memcpy(code, start, (size_t)length);
                code[length] = '\0';
                return 1;
            }
        } else {
            p++;
        }
    }
    return 0;
}

/* ---- Calling the engine -------------------------------------------------------------------------
 * Every operation returns PHONEAUTH_OK or an error number and sets out_json. take_result() parses
 * out_json, frees it with phoneauth_free, and on failure prints the error and returns NULL. */
static void print_error(const char *what, int status, json_t *error_object) {
    json_t *error = json_object_get(error_object, "error");
    fprintf(stderr, "%s failed: status %d (%s): %s\n", what, status,
            json_string_value(json_object_get(error, "code")),
            json_string_value(json_object_get(error, "message")));
}

static json_t *take_result(const char *what, int status, char *out_json) {
    json_t *parsed = out_json ? json_loads(out_json, 0, NULL) : NULL;
    phoneauth_free(out_json);
    if (status != PHONEAUTH_OK) {
        print_error(what, status, parsed);
        json_decref(parsed);
        return NULL;
    }
    return parsed; /* the caller json_decref()s it */
}

/* Runs a method by name with parameters built by jansson (the reference is stolen). */
static int call(phoneauth_engine *engine, const char *method, json_t *params, json_t **result) {
    char *params_json = json_dumps(params, JSON_COMPACT);
    json_decref(params);
    char *out_json = NULL;
    int status = phoneauth_call(engine, method, params_json, &out_json);
    free(params_json); /* made by jansson: free(), not phoneauth_free() */
    *result = out_json ? json_loads(out_json, 0, NULL) : NULL;
    phoneauth_free(out_json);
    return status;
}

static const char *str(json_t *object, const char *key) {
    const char *s = json_string_value(json_object_get(object, key));
    return s ? s : "";
}

/* verifyPhoneNumber -> credential -> signInWithCredential, with the code given or read from the
 * SMS (inbox != NULL). Returns the sign-in result (json_decref it) or NULL. */
static json_t *sign_in(phoneauth_engine *engine, struct inbox *inbox, const char *phone_number,
                       const char *known_code) {
    json_t *verification = NULL, *credential = NULL, *signed_in = NULL;
    char *sms = NULL;
    char *params = NULL;
    char *out = NULL;
    int status;

    /* 1. Ask for a code. The typed wrapper is the same as phoneauth_call(e, "verifyPhoneNumber", ...). */
    json_t *p = json_pack("{s:s}", "phoneNumber", phone_number);
    params = json_dumps(p, JSON_COMPACT);
    json_decref(p);
    status = phoneauth_verify_phone_number(engine, params, &out);
    free(params);
    verification = take_result("verifyPhoneNumber", status, out);
    if (!verification) goto done;
    const char *verification_id = str(verification, "verificationId");
    int code_length = (int)json_integer_value(json_object_get(verification, "codeLength"));
    printf("  verifyPhoneNumber(%s): verificationId %.12s..., %d-digit code, expires %s\n",
           phone_number, verification_id, code_length, str(verification, "expiresAt"));

    /* 2. Get the code: from the SMS, or the test number's fixed code. */
    char code[16];
    if (inbox) {
        sms = wait_for_sms(inbox, verification_id, 30);
        if (!sms) {
            fprintf(stderr, "no SMS arrived within 30 s\n");
            goto done;
        }
        json_t *message = json_loads(sms, 0, NULL);
        int found = code_from_body(str(message, "body"), code_length, code, sizeof code);
        printf("  SMS to %s: \"%s\"\n", str(message, "to"), str(message, "body"));
        json_decref(message);
        if (!found) {
            fprintf(stderr, "no %d-digit code in the SMS\n", code_length);
            goto done;
        }
    } else {
        snprintf(code, sizeof code, "%s", known_code);
    }

    /* 3. Turn the verification ID and the code into a credential. */
    p = json_pack("{s:s, s:s}", "verificationId", verification_id, "verificationCode", code);
    params = json_dumps(p, JSON_COMPACT);
    json_decref(p);
    out = NULL;
    status = phoneauth_credential(engine, params, &out);
    free(params);
    credential = take_result("credential", status, out);
    if (!credential) goto done;

    /* 4. Sign in with it. The credential is single use. */
    p = json_pack("{s:O}", "credential", json_object_get(credential, "credential"));
    params = json_dumps(p, JSON_COMPACT);
    json_decref(p);
    out = NULL;
    status = phoneauth_sign_in_with_credential(engine, params, &out);
    free(params);
    signed_in = take_result("signInWithCredential", status, out);
    if (!signed_in) goto done;
    json_t *user = json_object_get(signed_in, "user");
    json_t *info = json_object_get(signed_in, "additionalUserInfo");
    printf("  signed in: uid %s, phoneNumber %s, new user: %s\n", str(user, "uid"),
           str(user, "phoneNumber"), json_is_true(json_object_get(info, "isNewUser")) ? "yes" : "no");
    printf("  idToken %.20s..., refreshToken %.8s..., expiresIn %lld s\n", str(signed_in, "idToken"),
           str(signed_in, "refreshToken"),
           (long long)json_integer_value(json_object_get(signed_in, "expiresIn")));

done:
    free(sms);
    json_decref(credential);
    json_decref(verification);
    return signed_in;
}

int main(int argc, char **argv) {
    const char *database = argc > 1 ? argv[1] : "phoneauth-example.db";
    int exit_code = 1;
    json_t *first = NULL, *second = NULL, *refreshed = NULL, *claims = NULL, *r = NULL;
    struct inbox inbox = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL};

    /* A library built from another header would misbehave: check first. */
    if (phoneauth_abi_version() != PHONEAUTH_ABI_VERSION) {
        fprintf(stderr, "libphoneauth ABI %d, header %d\n", phoneauth_abi_version(), PHONEAUTH_ABI_VERSION);
        return 1;
    }
    printf("libphoneauth %s\n", phoneauth_version());

    /* ---- Open the engine. The database is created if missing; its key file beside it. ---------- */
    json_t *config = json_pack("{s:s, s:{s:s}}", "database", database, "testPhoneNumbers",
                               "+16505551234", "123456");
    char *config_json = json_dumps(config, JSON_COMPACT);
    json_decref(config);
    char *error_json = NULL;
    phoneauth_engine *engine = phoneauth_open(config_json, &error_json);
    free(config_json);
    if (!engine) {
        json_t *error = error_json ? json_loads(error_json, 0, NULL) : NULL;
        print_error("phoneauth_open", (int)json_integer_value(json_object_get(
                                          json_object_get(error, "error"), "status")),
                    error);
        json_decref(error);
        phoneauth_free(error_json);
        return 1;
    }
    printf("engine open on %s\n", database);

    /* ---- The SMS sender: messages go to our callback. ------------------------------------------ */
    if (phoneauth_set_sms_sender(engine, sms_sender, &inbox) != PHONEAUTH_OK) goto out;

    /* ---- A real number: the code comes by SMS. -------------------------------------------------- */
    printf("sign-in with an SMS code:\n");
    first = sign_in(engine, &inbox, "+16505553434", NULL);
    if (!first) goto out;

    /* ---- A test number: no SMS; its code is fixed in the configuration. ------------------------- */
    printf("sign-in with a test number:\n");
    second = sign_in(engine, NULL, "+16505551234", "123456");
    if (!second) goto out;

    /* ---- Tokens: refresh (the refresh token rotates), then verify the new ID token. ------------ */
    int status = call(engine, "refreshIdToken",
                      json_pack("{s:s}", "refreshToken", str(first, "refreshToken")), &refreshed);
    if (status != PHONEAUTH_OK) {
        print_error("refreshIdToken", status, refreshed);
        goto out;
    }
    printf("refreshIdToken: new idToken %.20s..., new refreshToken %.8s...\n",
           str(refreshed, "idToken"), str(refreshed, "refreshToken"));

    status = call(engine, "verifyIdToken", json_pack("{s:s}", "idToken", str(refreshed, "idToken")),
                  &claims);
    if (status != PHONEAUTH_OK) {
        print_error("verifyIdToken", status, claims);
        goto out;
    }
    json_t *c = json_object_get(claims, "claims");
    printf("verifyIdToken: sub %s, phone_number %s, aud %s\n", str(c, "sub"), str(c, "phone_number"),
           str(c, "aud"));

    /* ---- Sign out: that session's refresh token stops working. --------------------------------- */
    json_t *p = json_pack("{s:s}", "refreshToken", str(refreshed, "refreshToken"));
    char *params = json_dumps(p, JSON_COMPACT);
    json_decref(p);
    char *out = NULL;
    status = phoneauth_sign_out(engine, params, &out);
    free(params);
    r = take_result("signOut", status, out);
    if (!r) goto out;
    json_decref(r);
    r = NULL;
    printf("signOut: ok\n");

    status = call(engine, "refreshIdToken",
                  json_pack("{s:s}", "refreshToken", str(refreshed, "refreshToken")), &r);
    json_t *error = json_object_get(r, "error");
    if (status == PHONEAUTH_ERR_INVALID_USER_TOKEN) {
        printf("refreshIdToken after signOut: refused as expected: %s (%d, reason %s): %s\n",
               str(error, "code"), status, str(json_object_get(error, "details"), "reason"),
               phoneauth_strerror(status));
        exit_code = 0;
    } else {
        fprintf(stderr, "refreshIdToken after signOut: expected invalidUserToken, got %d\n", status);
    }

out:
    json_decref(r);
    json_decref(claims);
    json_decref(refreshed);
    json_decref(second);
    json_decref(first);
    /* Closing stops the delivery thread; the callback is not called after this returns. */
    phoneauth_close(engine);
    free(inbox.message_json);
    printf(exit_code == 0 ? "done\n" : "FAILED\n");
    return exit_code;
}
