#include "ccurl_shim.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct pa_http_client {
    CURL *easy;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_status = CURLE_FAILED_INIT;

static void global_init(void) { global_status = curl_global_init(CURL_GLOBAL_DEFAULT); }

pa_http_client *pa_http_client_new(void) {
    pthread_once(&global_once, global_init);
    if (global_status != CURLE_OK) return NULL;
    pa_http_client *client = calloc(1, sizeof *client);
    if (!client) return NULL;
    client->easy = curl_easy_init();
    if (!client->easy) {
        free(client);
        return NULL;
    }
    return client;
}

void pa_http_client_free(pa_http_client *client) {
    if (!client) return;
    curl_easy_cleanup(client->easy);
    free(client);
}

/* Keeps the first PA_HTTP_MAX_BODY bytes of the answer; the rest is read and dropped. */
static size_t collect_body(char *data, size_t size, size_t count, void *userdata) {
    pa_http_response *response = userdata;
    size_t n = size * count;
    size_t room = PA_HTTP_MAX_BODY - response->body_length;
    size_t keep = n < room ? n : room;
    if (keep > 0) {
        char *grown = realloc(response->body, response->body_length + keep + 1);
        if (!grown) return 0; /* libcurl fails the transfer: CURLE_WRITE_ERROR */
        memcpy(grown + response->body_length, data, keep);
        response->body_length += keep;
        grown[response->body_length] = 0;
        response->body = grown;
    }
    return n;
}

int pa_http_post(pa_http_client *client, const pa_http_request *request, pa_http_response *response) {
    memset(response, 0, sizeof *response);
    response->retry_after_seconds = -1;
    CURL *easy = client->easy;
    /* Options from the previous request go; its connections stay open for this one. */
    curl_easy_reset(easy);

    struct curl_slist *headers = NULL;
    int ok = 1;
    for (size_t i = 0; i < request->header_count && ok; i++) {
        struct curl_slist *more = curl_slist_append(headers, request->headers[i]);
        if (more) headers = more; else ok = 0;
    }
    /* No "Expect: 100-continue" round trip before the body. */
    struct curl_slist *more = ok ? curl_slist_append(headers, "Expect:") : NULL;
    if (!more) {
        curl_slist_free_all(headers);
        response->curl_code = CURLE_OUT_OF_MEMORY;
        return -1;
    }
    headers = more;

    /* An option libcurl refuses (an unknown protocol list, a CA file it cannot use) fails the
     * request rather than sending it with libcurl's defaults. */
    CURLcode rc = CURLE_OK;
#define SET(option, value) \
    do { \
        if (rc == CURLE_OK) rc = curl_easy_setopt(easy, option, value); \
    } while (0)
    SET(CURLOPT_URL, request->url);
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
    SET(CURLOPT_NOSIGNAL, 1L); /* timeouts without SIGALRM: we run on many threads */
    SET(CURLOPT_POST, 1L);
    SET(CURLOPT_POSTFIELDS, request->body);
    SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)request->body_length);
    SET(CURLOPT_HTTPHEADER, headers);
    SET(CURLOPT_USERAGENT, "phoneauth");
    if (request->basic_auth) {
        SET(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        SET(CURLOPT_USERPWD, request->basic_auth);
    }
    /* TLS peer and host verification are libcurl's defaults; only the trusted roots may change. */
    if (request->ca_file) SET(CURLOPT_CAINFO, request->ca_file);
    SET(CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    SET(CURLOPT_TIMEOUT_MS, request->timeout_ms);
    SET(CURLOPT_WRITEFUNCTION, collect_body);
    SET(CURLOPT_WRITEDATA, response);
#undef SET

    if (rc == CURLE_OK) rc = curl_easy_perform(easy);
    curl_slist_free_all(headers);
    /* The request's strings belong to the caller: libcurl must not keep pointers to them. */
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, NULL);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(easy, CURLOPT_USERPWD, NULL);
    response->curl_code = rc;
    response->timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    if (rc != CURLE_OK) return -1;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response->status);
    curl_off_t retry_after = 0;
    if (curl_easy_getinfo(easy, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0)
        response->retry_after_seconds = (long)retry_after;
    return 0;
}

void pa_http_response_free(pa_http_response *response) {
    free(response->body);
    response->body = NULL;
    response->body_length = 0;
}

const char *pa_http_error_text(int curl_code) { return curl_easy_strerror((CURLcode)curl_code); }
