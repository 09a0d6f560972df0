/*
 * phoneauth.h: the C interface of libphoneauth, a self-hosted phone-number sign-in engine.
 *
 * Conventions
 *   - Every symbol starts with phoneauth_ / PHONEAUTH_. An engine is an opaque handle made by
 *     phoneauth_open and destroyed by phoneauth_close.
 *   - Operations take their parameters as a JSON object (UTF-8 text) and return an int status:
 *     PHONEAUTH_OK (0) or an error number (PHONEAUTH_ERR_*). They always set *out_json to a new
 *     string: the result object on success, an error object otherwise:
 *       {"error": {"code": "invalidVerificationCode", "status": 17044, "message": "...", "details": {...}}}
 *     The methods, their parameters, results and errors are listed in docs/API.md.
 *   - Strings the library returns are owned by the caller and freed with phoneauth_free.
 *     Strings the caller passes are copied; the library keeps no pointer to them after returning.
 *   - Error numbers never change meaning; new ones may be added.
 *
 * Threads
 *   An engine is safe to use from many threads at once: every function may be called
 *   concurrently on the same engine, except phoneauth_close, which must be the last call on it.
 *   Several engines, in one process or several (on several machines, with PostgreSQL), may open
 *   the same database.
 *
 * Callbacks
 *   The SMS sender runs on the engine's own delivery threads, never on the caller's thread, and
 *   one message at a time unless the configuration's sms.concurrency is above 1: then up to that
 *   many calls run at once, on different threads, and the sender must be thread-safe. It must not
 *   call phoneauth_close or phoneauth_set_sms_sender on its engine. Delivery is at least once: a
 *   message whose outcome was not recorded (the process died mid-send) is sent again by an
 *   engine on the same database once its lease (30 seconds, or twice the providers' timeouts)
 *   runs out. The built-in HTTP providers (sms.providers: Twilio, Vonage, webhooks) need no
 *   callback at all.
 */
#ifndef PHONEAUTH_H
#define PHONEAUTH_H

#include <stddef.h> /* size_t */

#ifdef __cplusplus
extern "C" {
#endif

#define PHONEAUTH_VERSION "0.1.0"
/* major * 1000000 + minor * 1000 + patch, so versions compare as integers. */
#define PHONEAUTH_VERSION_NUMBER 1000
/* Raised only on an incompatible change of this header; a new value means a new SONAME. */
#define PHONEAUTH_ABI_VERSION 1

#if defined(__GNUC__) || defined(__clang__)
#define PHONEAUTH_WARN_UNUSED __attribute__((warn_unused_result))
#else
#define PHONEAUTH_WARN_UNUSED
#endif

/* Status numbers. Where Firebase's AuthErrorCode has the same meaning, its name and number. */
#define PHONEAUTH_OK                              0
#define PHONEAUTH_ERR_INVALID_CUSTOM_TOKEN    17000 /* malformed, bad signature, expired */
#define PHONEAUTH_ERR_CUSTOM_TOKEN_MISMATCH   17002 /* not a custom token of this project */
#define PHONEAUTH_ERR_INVALID_CREDENTIAL      17004 /* credential object malformed */
#define PHONEAUTH_ERR_USER_DISABLED           17005
#define PHONEAUTH_ERR_OPERATION_NOT_ALLOWED   17006
#define PHONEAUTH_ERR_TOO_MANY_REQUESTS       17010
#define PHONEAUTH_ERR_USER_NOT_FOUND          17011
#define PHONEAUTH_ERR_INVALID_USER_TOKEN      17017 /* refresh token unknown, revoked or reused */
#define PHONEAUTH_ERR_USER_TOKEN_EXPIRED      17021 /* ID token expired */
#define PHONEAUTH_ERR_MISSING_PHONE_NUMBER    17041
#define PHONEAUTH_ERR_INVALID_PHONE_NUMBER    17042
#define PHONEAUTH_ERR_MISSING_VERIFICATION_CODE 17043
#define PHONEAUTH_ERR_INVALID_VERIFICATION_CODE 17044
#define PHONEAUTH_ERR_MISSING_VERIFICATION_ID 17045
#define PHONEAUTH_ERR_INVALID_VERIFICATION_ID 17046
#define PHONEAUTH_ERR_SESSION_EXPIRED         17051
#define PHONEAUTH_ERR_QUOTA_EXCEEDED          17052
#define PHONEAUTH_ERR_MISSING_APP_CREDENTIAL  17047 /* app verification enforced, no proof given */
#define PHONEAUTH_ERR_INVALID_APP_CREDENTIAL  17048 /* receipt/secret wrong, used or expired */
#define PHONEAUTH_ERR_MISSING_APP_TOKEN       17053 /* verifyClient without appToken */
#define PHONEAUTH_ERR_APP_NOT_VERIFIED        17055
#define PHONEAUTH_ERR_CAPTCHA_CHECK_FAILED    17056 /* the captcha verifier said no */
#define PHONEAUTH_ERR_REQUIRES_RECENT_LOGIN   17014 /* sign in again (mfa.recentSignInSeconds) */
#define PHONEAUTH_ERR_PROVIDER_ALREADY_LINKED 17015 /* the account already has a phone number */
#define PHONEAUTH_ERR_NO_SUCH_PROVIDER        17016 /* unlink: nothing of that provider linked */
#define PHONEAUTH_ERR_USER_MISMATCH           17024 /* reauthenticate: credential of another user */
#define PHONEAUTH_ERR_CREDENTIAL_ALREADY_IN_USE 17025 /* details.temporaryProof (a secret) and phoneNumber: never log them */
#define PHONEAUTH_ERR_SECOND_FACTOR_REQUIRED  17078
#define PHONEAUTH_ERR_MISSING_MULTI_FACTOR_SESSION 17081
#define PHONEAUTH_ERR_MISSING_MULTI_FACTOR_INFO 17082
#define PHONEAUTH_ERR_INVALID_MULTI_FACTOR_SESSION 17083 /* unknown, expired or used */
#define PHONEAUTH_ERR_MULTI_FACTOR_INFO_NOT_FOUND 17084
#define PHONEAUTH_ERR_SECOND_FACTOR_ALREADY_ENROLLED 17087
#define PHONEAUTH_ERR_MAXIMUM_SECOND_FACTOR_COUNT_EXCEEDED 17088
#define PHONEAUTH_ERR_UNSUPPORTED_FIRST_FACTOR 17089 /* a number is a first or a second factor, not both */
#define PHONEAUTH_ERR_BLOCKING_FUNCTION_ERROR 17105 /* a blocking hook (beforeSendSms, ...) refused it */
#define PHONEAUTH_ERR_INTERNAL                17999
/* Engine-only errors. */
#define PHONEAUTH_ERR_INVALID_ARGUMENT        18000 /* NULL, malformed JSON, wrong type, unknown field, too large */
#define PHONEAUTH_ERR_INVALID_CONFIGURATION   18001
#define PHONEAUTH_ERR_UNKNOWN_METHOD          18002
#define PHONEAUTH_ERR_STORAGE                 18003 /* the database cannot be opened or written;
                                                       details.retryable says if trying later may work */
#define PHONEAUTH_ERR_INVALID_ID_TOKEN        18004 /* malformed, bad signature, wrong issuer or audience */
#define PHONEAUTH_ERR_ID_TOKEN_REVOKED        18005
#define PHONEAUTH_ERR_PHONE_NUMBER_EXISTS     18006 /* createUser, updateUser: another user has that number */
#define PHONEAUTH_ERR_UID_EXISTS              18007 /* createUser: another user has that uid */
/* phoneauthd's own refusals (the library never returns them; listed so the numbers stay taken). */
#define PHONEAUTH_ERR_INSUFFICIENT_PERMISSION 18008 /* an admin method without a valid admin token */
#define PHONEAUTH_ERR_INVALID_API_KEY         18009 /* a client method without a valid API key */
/* Tenants (docs/API.md, "Tenants"). */
#define PHONEAUTH_ERR_TENANT_NOT_FOUND        18010 /* tenantId names no tenant */
#define PHONEAUTH_ERR_TENANT_NOT_EMPTY        18011 /* deleteTenant: the tenant still has users */
#define PHONEAUTH_ERR_TENANT_ID_MISMATCH      18012 /* a custom token or imported user of another tenant */

/* Opaque engine handle. */
typedef struct phoneauth_engine phoneauth_engine;

/* Opens an engine from a JSON configuration object (see docs/API.md, "Configuration").
 * Returns the handle, or NULL with *error_json set to a new error object (when error_json is not
 * NULL; free it with phoneauth_free). Creates or migrates the database and its keys. The
 * database is a SQLite file's path or a postgresql:// URI (then a masterKey must be given). */
phoneauth_engine *phoneauth_open(const char *config_json, char **error_json) PHONEAUTH_WARN_UNUSED;

/* Stops the delivery threads (waiting for SMS being sent to finish: a callback to return, an HTTP
 * request to be answered or time out) and frees the engine.
 * Messages not yet delivered stay in the database's outbox for the next engine. NULL is a no-op. */
void phoneauth_close(phoneauth_engine *engine);

/* Runs the method named `method` (e.g. "verifyPhoneNumber") with a JSON object of parameters
 * (NULL means {}). Returns PHONEAUTH_OK or an error number; *out_json is always set to a new
 * string, the result or the error object, unless out_json is NULL. */
int phoneauth_call(phoneauth_engine *engine, const char *method, const char *params_json,
                   char **out_json);

/* Typed wrappers: the same as phoneauth_call with the method named after the function. */
int phoneauth_verify_phone_number(phoneauth_engine *engine, const char *params_json, char **out_json);
int phoneauth_credential(phoneauth_engine *engine, const char *params_json, char **out_json);
int phoneauth_sign_in_with_credential(phoneauth_engine *engine, const char *params_json, char **out_json);
int phoneauth_sign_out(phoneauth_engine *engine, const char *params_json, char **out_json);
int phoneauth_mfa_resolve_sign_in(phoneauth_engine *engine, const char *params_json, char **out_json);
/* Passkeys (docs/API.md, "Passkeys"): startPasskeyEnrollment, finishPasskeyEnrollment,
 * startPasskeySignIn, finishPasskeySignIn. */
int phoneauth_start_passkey_enrollment(phoneauth_engine *engine, const char *params_json, char **out_json);
int phoneauth_finish_passkey_enrollment(phoneauth_engine *engine, const char *params_json, char **out_json);
int phoneauth_start_passkey_sign_in(phoneauth_engine *engine, const char *params_json, char **out_json);
int phoneauth_finish_passkey_sign_in(phoneauth_engine *engine, const char *params_json, char **out_json);

/* Frees a string returned by this library. NULL is a no-op. */
void phoneauth_free(void *ptr);

/* The library's version, "0.1.0" (static text) and its ABI version (PHONEAUTH_ABI_VERSION of the
 * header it was built with). Compare them with the macros to detect a wrong library. */
const char *phoneauth_version(void);
int phoneauth_abi_version(void);

/* Static English text for a status number, e.g. "invalidVerificationCode: ..."; never NULL. */
const char *phoneauth_strerror(int status);

/* SMS sender callback (it carries every channel). Receives a JSON object
 *   {"to": "+16505553434", "channel": "sms" | "whatsapp" | "voice", "body": "...", "code": "123456",
 *    "languageCode": "en", "verificationId": "...",
 *    "purpose": "signIn" | "enroll" | "mfaSignIn" | "temporaryProof",
 *    "encoding": "GSM-7" | "UCS-2", "segments": 1}  (what the text costs: docs/API.md, "SMS text")
 * valid only during the call: "body" is the SMS text, or for a call the words to say; "code" the
 * code alone, for a WhatsApp template's parameter (docs/API.md, "Channels"). Returns 0 when the
 * message was handed to the carrier, non-zero when delivery failed and should be retried later.
 * Runs on a delivery thread (see Callbacks above for sms.concurrency). The body and code hold the
 * code: do not log them. */
typedef int (*phoneauth_sms_sender)(void *ctx, const char *message_json);

/* Installs (or, with sender NULL, removes) the SMS sender used by the "callback" provider.
 * Returns PHONEAUTH_OK, or PHONEAUTH_ERR_INVALID_ARGUMENT for a NULL engine. Messages queued while
 * no sender is installed wait in the outbox. If calls to the old sender are running, this waits
 * for them to return (so do not hold a lock your sender needs while calling it); after it
 * returns, the previous sender is never called again. */
int phoneauth_set_sms_sender(phoneauth_engine *engine, phoneauth_sms_sender sender, void *ctx);

/* Log sink callback. Receives one event as a JSON object, valid only during the call:
 *   {"event": "limitTripped", "time": "2026-11-21T09:30:00.250Z", "limit": "smsPerNumberPerHour",
 *    "scope": "+*******3434", "retryAfterSeconds": 1800}
 * Events: codeSent, deliveryFailed, providerSkipped, providerRestored, signInSucceeded,
 * signInFailed, limitTripped, lockout, ... (their fields are listed in docs/API.md). Phone numbers are masked to their last four digits; codes,
 * secrets and tokens never appear. It runs on the thread of the call that caused the event, on a
 * delivery thread or the event thread (eventDeliveryFailed), or on the thread in phoneauth_close
 * (for the last sends), possibly on several
 * threads at once: it must be thread-safe, quick (a slow sink holds up the delivery
 * bookkeeping), and must not call back into the engine. codeSent and deliveryFailed come once the
 * outcome is in the store, so a getVerificationStatus made (from another thread) after one
 * arrives agrees with it. */
typedef void (*phoneauth_log_sink)(void *ctx, const char *event_json);

/* Installs (or, with sink NULL, removes) the log sink. Returns PHONEAUTH_OK, or
 * PHONEAUTH_ERR_INVALID_ARGUMENT for a NULL engine. A sink being called when it is replaced may
 * finish that call afterwards; keep its ctx valid until phoneauth_close. */
int phoneauth_set_log_sink(phoneauth_engine *engine, phoneauth_log_sink sink, void *ctx);

/* App verification (docs/API.md, "App verification").
 * Both callbacks run on the threads of the calls that need them, possibly several at once: they
 * must be thread-safe. A callback being called when it is replaced or removed may finish that call
 * afterwards: keep its ctx valid until phoneauth_close. Their JSON inputs are valid only during the
 * call. Installing either turns app verification on for good (unless the configuration sets
 * appVerification.enforce): removing or replacing one later does not turn it off.
 *
 * Push sender callback. Receives {"appToken": "...", "tokenType": "prod" | "sandbox" | "unknown",
 * "payload": {"phoneauth": {"receipt": "...", "secret": "..."}}}, valid only during the call, and
 * sends the payload to the app as a silent push (APNs, FCM). Returns 0 when the push service
 * accepted it. Runs on the thread that called verifyClient. The text holds a secret: do not log it. */
typedef int (*phoneauth_push_sender)(void *ctx, const char *message_json);

/* Installs (or, with sender NULL, removes) the push sender. Returns PHONEAUTH_OK, or
 * PHONEAUTH_ERR_INVALID_ARGUMENT for a NULL engine. */
int phoneauth_set_push_sender(phoneauth_engine *engine, phoneauth_push_sender sender, void *ctx);

/* Captcha verifier callback. Receives {"token": "...", "clientIp": "...", "phoneNumber": "+1..."}
 * (clientIp when the call gave one; phoneNumber when pumping.tollFraud wants the send rated) and
 * checks the token with its provider (reCAPTCHA, hCaptcha, Turnstile...). Writes a NUL-terminated
 * JSON answer {"success": true, "score": 0.9, "tollFraudRisk": 0.1} ("score" and "tollFraudRisk"
 * optional numbers; the risk, 0 to 1, is how likely the send is SMS toll fraud) of at most
 * response_size (1024) bytes into response_json and returns 0; returns non-zero when it could
 * not check. Runs on the thread of the call that sends an SMS (verifyPhoneNumber, its
 * second-factor form, mfaEnrollStart). The engine asks about each token once: a token presented
 * again is refused without calling the verifier. */
typedef int (*phoneauth_captcha_verifier)(void *ctx, const char *request_json, char *response_json,
                                          size_t response_size);

/* Installs (or, with verifier NULL, removes) the captcha verifier. Returns PHONEAUTH_OK, or
 * PHONEAUTH_ERR_INVALID_ARGUMENT for a NULL engine. */
int phoneauth_set_captcha_verifier(phoneauth_engine *engine, phoneauth_captcha_verifier verifier, void *ctx);

/* Blocking hook callback (docs/API.md, "Hooks"). Receives the event as JSON, valid only during
 * the call: {"event_id", "event_type", "iat", "ip_address", "locale", "sign_in_method", ...;
 * beforeSendSms: "phone_number", "sms_type" and, for a second factor's SMS, "sub" and
 * "user_record"; beforeCreate and beforeSignIn: "sub", "user_record" and, after a second factor,
 * "sign_in_second_factor"}. Writes a NUL-terminated JSON response of at most response_size (8192)
 * bytes, the NUL included, into response_json and returns 0:
 *   {} to let the operation go on;
 *   {"userRecord": {"updateMask": "displayName,disabled,customClaims,sessionClaims", ...}}
 *     (beforeCreate, beforeSignIn; sessionClaims beforeSignIn only) to change the user;
 *   {"recaptchaActionOverride": "BLOCK"} to stop an SMS (beforeSendSms);
 *   {"error": {"status": "PERMISSION_DENIED", "message": "..."}} to refuse, which the caller
 *     receives as PHONEAUTH_ERR_BLOCKING_FUNCTION_ERROR with that message.
 * A non-zero return or a response that is not a JSON object (or names what the hook may not
 * change) is a failure: the configuration's hooks.<name>.onError decides ("deny", the default,
 * refuses), as it does when 8 calls of the hook are already running. beforeCreate and
 * beforeSignIn run after the code was checked and spent: a refused sign-in's code stays used.
 * Runs on the thread of the call that reaches the hook (verifyPhoneNumber, its second-factor
 * form and mfaEnrollStart for beforeSendSms; signInWithCredential, mfaResolveSignIn,
 * linkWithCredential, updatePhoneNumber and reauthenticateWithCredential for the others), never
 * inside a store transaction; callable from any thread at once. */
typedef int (*phoneauth_hook)(void *ctx, const char *event_json, char *response_json, size_t response_size);

/* Installs (or, with hook NULL, removes) the hook of that name: "beforeCreate", "beforeSignIn" or
 * "beforeSendSms"; it replaces the configuration's HTTP hook of that name.
 * Returns PHONEAUTH_OK, or PHONEAUTH_ERR_INVALID_ARGUMENT for a NULL engine or an unknown name.
 * Keep ctx valid until phoneauth_close. */
int phoneauth_set_hook(phoneauth_engine *engine, const char *name, phoneauth_hook hook, void *ctx);

/* Event handler callback (docs/API.md, "Events"). Receives one recorded event, the JSON a webhook
 * receiver gets: {"id": "evt_...", "type": "userCreated", "timestamp": "...", "data": {...}}, valid
 * only during the call. Returns 0 when it took the event; non-zero, and the event is offered again
 * later (backoff as for the webhook). Events of one user come in the order they were recorded
 * (docs/API.md, "Events", says how far that holds across engines), each at least once: drop
 * repeats by "id". Runs on the engine's event thread, one event at a time;
 * it may call into the engine, but not phoneauth_close (which waits for that thread). */
typedef int (*phoneauth_event_handler)(void *ctx, const char *event_json);

/* Installs (or, with handler NULL, removes) the event handler; it replaces the configuration's
 * events webhook, and takes the events recorded while none was installed. Returns PHONEAUTH_OK,
 * PHONEAUTH_ERR_INVALID_ARGUMENT for a NULL engine or a configuration without "events" (no
 * events are recorded then). Keep ctx valid until phoneauth_close. */
int phoneauth_set_event_handler(phoneauth_engine *engine, phoneauth_event_handler handler, void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* PHONEAUTH_H */
