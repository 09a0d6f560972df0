/*
 * app_verification.c: proving that a sign-in request comes from your app before libphoneauth
 * sends an SMS, from C. Once a push sender or a captcha verifier is installed, verifyPhoneNumber
 * wants an "appVerification" proof. The client side goes:
 *
 *   1. verifyClient {appToken}: the engine sends a silent push holding a receipt and a secret
 *      through your push sender (here: "delivered" to a simulated device queue)
 *   2. wait up to suggestedTimeout seconds for the push; the app's notification handler passes
 *      it to canHandleNotification -> {receipt, secret}
 *   3. verifyPhoneNumber {phoneNumber, appVerification: {receipt, secret}}
 *   If the push does not arrive in time, the captcha fallback:
 *   4. getCaptchaChallenge {callbackScheme} -> a page URL to show in a browser
 *   5. the page redirects to "<scheme>://phoneauth/link?deep_link_id=..."; canHandleURL -> token
 *   6. verifyPhoneNumber {phoneNumber, appVerification: {captchaToken}}: the engine asks your
 *      captcha verifier whether the token is good
 *
 * This runs it twice: once with the push arriving, once with the device offline. The numbers are
 * test numbers (fixed codes, no SMS); signin.c shows real SMS. Build and run (after `make install`):
 *   cc app_verification.c -o app_verification $(pkg-config --cflags --libs phoneauth jansson) -lpthread
 *   ./app_verification /tmp/phoneauth-appverification-example.db
 *
 * Strings from libphoneauth are freed with phoneauth_free(), those from jansson with free().
 */
#include <phoneauth.h>
#include <jansson.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FIRST_NUMBER "+16505551234"
#define FIRST_CODE "123456"
#define SECOND_NUMBER "+16505555678"
#define SECOND_CODE "654321"
#define CAPTCHA_PAGE "https://auth.example.com/captcha"
#define CALLBACK_SCHEME "com.example.app" /* the app's registered URL scheme */
#define SOLVED_TOKEN "simulated-captcha-token"

/* ---- The push service and the device --------------------------------------------------------
 * A real push sender hands message.payload to APNs or FCM for message.appToken and returns 0 once
 * the service accepted it. Delivery happens later, or never. Here the "device" is a queue of one
 * payload; when it is offline, accepted pushes are silently lost. */
struct device {
    pthread_mutex_t lock;
    pthread_cond_t arrived;
    char *payload_json; /* the payload the app received, or NULL */
    int online;
};

static int push_sender(void *ctx, const char *message_json) {
    struct device *device = ctx;
    json_t *message = json_loads(message_json, 0, NULL);
    /* Only the payload travels to the device. message_json holds a secret: never log it. */
    char *payload = json_dumps(json_object_get(message, "payload"), JSON_COMPACT);
    json_decref(message);
    if (!payload) return 1; /* the push could not be sent */
    pthread_mutex_lock(&device->lock);
    if (device->online) {
        free(device->payload_json);
        device->payload_json = payload;
        payload = NULL;
        pthread_cond_signal(&device->arrived);
    }
    pthread_mutex_unlock(&device->lock);
    free(payload);
    return 0; /* accepted by the push service, whether or not it arrives */
}

/* The app's side: waits up to `seconds` for a push; returns its payload (free() it) or NULL. */
static char *wait_for_push(struct device *device, int seconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += seconds;
    pthread_mutex_lock(&device->lock);
    while (!device->payload_json &&
           pthread_cond_timedwait(&device->arrived, &device->lock, &deadline) != ETIMEDOUT) {
    }
    char *payload = device->payload_json;
    device->payload_json = NULL;
    pthread_mutex_unlock(&device->lock);
    return payload;
}

/* ---- The captcha verifier -------------------------------------------------------------------
 * A real one posts request.token (and request.clientIp) to its provider's verify endpoint
 * (reCAPTCHA siteverify, hCaptcha, Turnstile) and copies the verdict. Returning non-zero means
 * "could not check" (provider unreachable): verifyPhoneNumber then fails with verifierFailed. */
static int captcha_verifier(void *ctx, const char *request_json, char *response_json,
                            size_t response_size) {
    int *calls = ctx;
    (*calls)++;
    json_t *request = json_loads(request_json, 0, NULL);
    const char *token = json_string_value(json_object_get(request, "token"));
    int good = token && strcmp(token, SOLVED_TOKEN) == 0;
    json_decref(request);
    snprintf(response_json, response_size, good ? "{\"success\": true, \"score\": 0.9}"
                                                : "{\"success\": false}");
    return 0;
}

/* ---- Calling the engine ---------------------------------------------------------------------- */

/* Runs a method with parameters built by jansson (the reference is stolen). Returns the result
 * (json_decref it), or NULL after printing the error. */
static json_t *must(phoneauth_engine *engine, const char *method, json_t *params) {
    char *params_json = json_dumps(params, JSON_COMPACT);
    json_decref(params);
    char *out_json = NULL;
    int status = phoneauth_call(engine, method, params_json, &out_json);
    free(params_json);
    json_t *result = out_json ? json_loads(out_json, 0, NULL) : NULL;
    phoneauth_free(out_json);
    if (status == PHONEAUTH_OK) return result;
    json_t *error = json_object_get(result, "error");
    fprintf(stderr, "%s failed: status %d (%s): %s\n", method, status,
            json_string_value(json_object_get(error, "code")),
            json_string_value(json_object_get(error, "message")));
    json_decref(result);
    return NULL;
}

static const char *str(json_t *object, const char *key) {
    const char *s = json_string_value(json_object_get(object, key));
    return s ? s : "";
}

/* Appends s percent-encoded (all but RFC 3986's unreserved characters) to out. */
static void percent_encode(char *out, size_t size, const char *s) {
    size_t n = strlen(out);
    for (; *s && n + 4 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("-._~", c))
            out[n++] = (char)c;
        else
            n += (size_t)snprintf(out + n, size - n, "%%%02X", c);
    }
    out[n] = '\0';
}

/* Stands in for the captcha page in the browser: the user solves it, and the page sends the
 * browser to the app's URL scheme with the event it was opened for and the provider's token.
 * Returns 0 when the page URL has no eventId. */
static int simulated_captcha_page(const char *page_url, char *redirect, size_t size) {
    const char *event = strstr(page_url, "eventId=");
    if (!event) return 0;
    event += strlen("eventId=");
    char done[1024];
    snprintf(done, sizeof done, CAPTCHA_PAGE "/done?eventId=%.*s&captchaToken=" SOLVED_TOKEN,
             (int)strcspn(event, "&"), event);
    snprintf(redirect, size, CALLBACK_SCHEME "://phoneauth/link?deep_link_id=");
    percent_encode(redirect, size, done);
    return 1;
}

/* Steps 1-3, or 4-6 when the push does not come: returns the appVerification object for
 * verifyPhoneNumber (json_decref it), or NULL. *used_push tells which way it went. */
static json_t *verify_app(phoneauth_engine *engine, struct device *device, int *used_push) {
    json_t *proof = NULL;
    *used_push = 0;

    /* 1. Ask for the push. (pushFailed or noPushSender errors: go straight to the captcha.) */
    json_t *sent = must(engine, "verifyClient",
                        json_pack("{s:s, s:s}", "appToken", "simulated-apns-device-token",
                                  "tokenType", "sandbox"));
    if (sent) {
        int timeout = (int)json_integer_value(json_object_get(sent, "suggestedTimeout"));
        printf("  verifyClient: receipt %.12s..., waiting up to %d s for the push\n",
               str(sent, "receipt"), timeout);
        json_decref(sent);

        /* 2. The notification handler gives every push to canHandleNotification first. */
        char *payload = wait_for_push(device, timeout);
        if (payload) {
            json_t *handled = must(engine, "canHandleNotification",
                                   json_pack("{s:o}", "notification", json_loads(payload, 0, NULL)));
            free(payload);
            if (handled && json_is_true(json_object_get(handled, "handled")) &&
                json_object_get(handled, "secret")) {
                proof = json_pack("{s:s, s:s}", "receipt", str(handled, "receipt"), "secret",
                                  str(handled, "secret"));
                *used_push = 1;
                printf("  push arrived: canHandleNotification gave the receipt and its secret\n");
            }
            json_decref(handled);
            if (proof) return proof;
        }
        printf("  no push within %d s: falling back to the captcha\n", timeout);
    }

    /* 4. Show the captcha page. */
    json_t *challenge = must(engine, "getCaptchaChallenge",
                             json_pack("{s:s, s:s}", "callbackScheme", CALLBACK_SCHEME,
                                       "languageCode", "en-US"));
    if (!challenge) return NULL;
    printf("  getCaptchaChallenge: show %s\n", str(challenge, "url"));

    /* 5. The browser comes back through the app's URL scheme. */
    char redirect[2048];
    int redirected = simulated_captcha_page(str(challenge, "url"), redirect, sizeof redirect);
    json_decref(challenge);
    if (!redirected) return NULL;
    json_t *handled = must(engine, "canHandleURL", json_pack("{s:s}", "url", redirect));
    if (handled && json_object_get(handled, "captchaToken")) {
        proof = json_pack("{s:s}", "captchaToken", str(handled, "captchaToken"));
        printf("  canHandleURL: captcha token %s\n", str(handled, "captchaToken"));
    } else if (handled) {
        fprintf(stderr, "canHandleURL did not take the redirect (error: %s)\n", str(handled, "error"));
    }
    json_decref(handled);
    return proof;
}

/* 3. / 6. verifyPhoneNumber with the proof, then the (fixed) code signs in. Returns 1 if signed in. */
static int sign_in(phoneauth_engine *engine, struct device *device, const char *phone_number,
                   const char *code, int *used_push) {
    json_t *proof = verify_app(engine, device, used_push);
    if (!proof) return 0;
    json_t *verification = must(engine, "verifyPhoneNumber",
                                json_pack("{s:s, s:o}", "phoneNumber", phone_number,
                                          "appVerification", proof));
    if (!verification) return 0;
    printf("  verifyPhoneNumber: code sent, verificationId %.12s...\n",
           str(verification, "verificationId"));
    json_t *signed_in = must(engine, "signInWithCredential",
                             json_pack("{s:{s:s, s:s, s:s}}", "credential", "providerId", "phone",
                                       "verificationId", str(verification, "verificationId"),
                                       "verificationCode", code));
    json_decref(verification);
    if (!signed_in) return 0;
    printf("  signed in: uid %s\n", str(json_object_get(signed_in, "user"), "uid"));
    json_decref(signed_in);
    return 1;
}

int main(int argc, char **argv) {
    const char *database = argc > 1 ? argv[1] : "phoneauth-appverification-example.db";
    struct device device = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 1};
    int captcha_checks = 0, used_push = 0, exit_code = 1;

    /* pushTimeoutSeconds is what verifyClient suggests waiting (default 5; 1 keeps this short). */
    json_t *config = json_pack("{s:s, s:{s:s, s:s}, s:{s:i}, s:{s:s}}", "database", database,
                               "testPhoneNumbers", FIRST_NUMBER, FIRST_CODE, SECOND_NUMBER, SECOND_CODE,
                               "appVerification", "pushTimeoutSeconds", 1,
                               "captcha", "pageUrl", CAPTCHA_PAGE);
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

    /* Installing either callback makes verifyPhoneNumber require the proof (unless the
     * configuration sets appVerification.enforce). Both run on the caller's thread. */
    if (phoneauth_set_push_sender(engine, push_sender, &device) != PHONEAUTH_OK ||
        phoneauth_set_captcha_verifier(engine, captcha_verifier, &captcha_checks) != PHONEAUTH_OK)
        goto out;

    printf("sign-in, the push arrives:\n");
    if (!sign_in(engine, &device, FIRST_NUMBER, FIRST_CODE, &used_push)) goto out;
    if (!used_push || captcha_checks != 0) {
        fprintf(stderr, "expected the push to do it, without a captcha\n");
        goto out;
    }

    printf("sign-in, the device is offline:\n");
    pthread_mutex_lock(&device.lock);
    device.online = 0;
    pthread_mutex_unlock(&device.lock);
    if (!sign_in(engine, &device, SECOND_NUMBER, SECOND_CODE, &used_push)) goto out;
    if (used_push || captcha_checks != 1) {
        fprintf(stderr, "expected the captcha fallback, checked once (%d)\n", captcha_checks);
        goto out;
    }
    exit_code = 0;

out:
    phoneauth_close(engine);
    free(device.payload_json);
    printf(exit_code == 0 ? "done\n" : "FAILED\n");
    return exit_code;
}
