#ifndef PHONEAUTH_CCURL_SHIM_H
#define PHONEAUTH_CCURL_SHIM_H
/* A narrow C face of libcurl for the SMS providers: one HTTP POST at a time per client, on a
 * handle kept between requests so its connections are reused. curl_easy_setopt is variadic and
 * cannot be called from Swift; this file holds every libcurl call the engine makes. */
#include <stddef.h>

typedef struct pa_http_client pa_http_client;

typedef struct {
    const char *url;
    const char *body;
    size_t body_length;
    /* "Name: value" lines, header_count of them. */
    const char *const *headers;
    size_t header_count;
    /* "user:password" for HTTP Basic authentication, or NULL. */
    const char *basic_auth;
    /* A PEM file of the certificate authorities to trust instead of the system's, or NULL. */
    const char *ca_file;
    long connect_timeout_ms;
    long timeout_ms;
} pa_http_request;

typedef struct {
    /* The HTTP status, or 0 when no answer came (see curl_code). */
    long status;
    /* CURLE_OK, or why the exchange failed (timeout, connection refused, TLS, ...). */
    int curl_code;
    /* 1 when curl_code is a timeout. */
    int timed_out;
    /* The Retry-After header in seconds (either of its forms), or -1. */
    long retry_after_seconds;
    /* The answer's body (at most PA_HTTP_MAX_BODY bytes, NUL-terminated; free with
     * pa_http_response_free), or NULL. */
    char *body;
    size_t body_length;
} pa_http_response;

#define PA_HTTP_MAX_BODY 65536

/* A client: one libcurl handle, kept between requests. NULL when libcurl cannot start. */
pa_http_client *pa_http_client_new(void);
void pa_http_client_free(pa_http_client *client);

/* Sends a POST and waits for its answer (at most timeout_ms). Returns 0 when an answer came,
 * -1 otherwise; the response says what happened in either case. */
int pa_http_post(pa_http_client *client, const pa_http_request *request, pa_http_response *response);
void pa_http_response_free(pa_http_response *response);

/* libcurl's static English text for a curl_code. */
const char *pa_http_error_text(int curl_code);

#endif
