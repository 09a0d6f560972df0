/* test_providers.c: the built-in HTTP provider and concurrent delivery, from C, with threads.
 *
 * A small HTTP/1.1 server on loopback (a thread per connection, keep-alive) stands in for
 * Twilio. Checked:
 *   - an engine with a Twilio provider and sms.concurrency 4 delivers every message, as Twilio's
 *     API wants it (path, Basic authentication, form body), records the provider's message ID,
 *     and keeps its connections open (fewer connections than requests);
 *   - a codeSent event is told once the outcome is in the store: the verification read as soon
 *     as the event comes shows the provider and its message ID;
 *   - closing an engine while requests are in flight returns, and a later engine sends what it
 *     left; under valgrind, ASan/LSan and TSan (make check-memory, check-sanitizers) nothing leaks
 *     or races in the libcurl handles, the sender threads or the outcomes they record;
 *   - a callback with sms.concurrency 4 is called on several threads at once.
 */
#include "testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ---- the loopback server --------------------------------------------------------------------- */

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int listener;
    int port;
    int requests;
    int connections;
    int open_connections;
    int bad_requests; /* wrong path, authentication or body */
    int delay_ms;
} g_srv = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, -1, 0, 0, 0, 0, 0, 0};

#define ACCOUNT "AC0123"
#define TOKEN "c-test-token"
/* base64("AC0123:c-test-token") */
#define AUTH_LINE "Authorization: Basic QUMwMTIzOmMtdGVzdC10b2tlbg=="
#define PATH "POST /2010-04-01/Accounts/" ACCOUNT "/Messages.json HTTP/1.1"

/* Reads one request (headers and Content-Length body) into buf; returns its length, 0 at EOF. */
static int read_request(int fd, char *buf, int size) {
    int have = 0;
    while (have < size - 1) {
        buf[have] = 0;
        char *end = strstr(buf, "\r\n\r\n");
        if (end) {
            const char *cl = strcasestr(buf, "\r\nContent-Length:");
            int body = cl ? atoi(cl + 17) : 0;
            int want = (int)(end + 4 - buf) + body;
            if (want >= size) return -1;
            if (have >= want) return have;
        }
        ssize_t n = recv(fd, buf + have, (size_t)(size - 1 - have), 0);
        if (n <= 0) return 0;
        have += (int)n;
    }
    return -1;
}

static void *serve_connection(void *arg) {
    int fd = (int)(intptr_t)arg;
    static char bufs[64][16384];
    static int next_buf;
    pthread_mutex_lock(&g_srv.mu);
    char *buf = bufs[next_buf++ % 64];
    pthread_mutex_unlock(&g_srv.mu);
    int len;
    while ((len = read_request(fd, buf, sizeof bufs[0])) > 0) {
        buf[len] = 0;
        int ok = strncmp(buf, PATH, strlen(PATH)) == 0 && strstr(buf, "\r\n" AUTH_LINE "\r\n") &&
                 strstr(buf, "\r\n\r\nTo=%2B1650555") && strstr(buf, "&From=%2B15005550006&Body=");
        pthread_mutex_lock(&g_srv.mu);
        int n = ++g_srv.requests;
        if (!ok) g_srv.bad_requests++;
        int delay = g_srv.delay_ms;
        pthread_cond_broadcast(&g_srv.cv);
        pthread_mutex_unlock(&g_srv.mu);
        if (delay) tu_sleep_ms(delay);
        char body[64], answer[256];
        int blen = snprintf(body, sizeof body, "{\"sid\": \"SM%d\", \"status\": \"queued\"}", n);
        int alen = snprintf(answer, sizeof answer,
                            "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
                            blen, body);
        if (send(fd, answer, (size_t)alen, MSG_NOSIGNAL) != alen) break;
    }
    close(fd);
    pthread_mutex_lock(&g_srv.mu);
    g_srv.open_connections--;
    pthread_cond_broadcast(&g_srv.cv);
    pthread_mutex_unlock(&g_srv.mu);
    return NULL;
}

static void *accept_loop(void *arg) {
    (void)arg;
    for (;;) {
        int fd = accept(g_srv.listener, NULL, NULL);
        if (fd < 0) return NULL; /* the listener was shut down */
        pthread_mutex_lock(&g_srv.mu);
        g_srv.connections++;
        g_srv.open_connections++;
        pthread_mutex_unlock(&g_srv.mu);
        pthread_t t;
        pthread_create(&t, NULL, serve_connection, (void *)(intptr_t)fd);
        pthread_detach(t);
    }
}

static pthread_t start_server(void) {
    g_srv.listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    CHECK(bind(g_srv.listener, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(g_srv.listener, 64) == 0);
    getsockname(g_srv.listener, (struct sockaddr *)&a, &len);
    g_srv.port = ntohs(a.sin_port);
    pthread_t t;
    pthread_create(&t, NULL, accept_loop, NULL);
    return t;
}

/* The server's counters are read and set under its lock (the tests also run under TSan). */
static int srv_get(const int *field) {
    pthread_mutex_lock(&g_srv.mu);
    int n = *field;
    pthread_mutex_unlock(&g_srv.mu);
    return n;
}

static void srv_set(int *field, int value) {
    pthread_mutex_lock(&g_srv.mu);
    *field = value;
    pthread_mutex_unlock(&g_srv.mu);
}

static int server_requests(void) { return srv_get(&g_srv.requests); }

/* ---- events ------------------------------------------------------------------------------------ */

static int g_sent;
static int g_bad_events; /* codeSent without the provider or its message ID */

/* The message ID of the last codeSent, handed to a thread waiting for it. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    char message_id[64];
} g_last = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, ""};

static void sink(void *ctx, const char *event_json) {
    (void)ctx;
    json_t *e = json_loads(event_json, 0, NULL);
    const char *name = tu_str(e, "event");
    if (name && !strcmp(name, "codeSent")) {
        const char *provider = tu_str(e, "provider"), *id = tu_str(e, "messageId");
        if (!provider || strcmp(provider, "twilio") || !id || strncmp(id, "SM", 2))
            __atomic_add_fetch(&g_bad_events, 1, __ATOMIC_SEQ_CST);
        /* Counted under the mutex, before the broadcast: a woken waiter must see the count. */
        pthread_mutex_lock(&g_last.mu);
        snprintf(g_last.message_id, sizeof g_last.message_id, "%s", id ? id : "?");
        __atomic_add_fetch(&g_sent, 1, __ATOMIC_SEQ_CST);
        pthread_cond_broadcast(&g_last.cond);
        pthread_mutex_unlock(&g_last.mu);
    }
    json_decref(e);
}

/* Waits for the codeSent of a message sent after `before` were; returns its message ID (or ""). */
static void wait_next_sent(int before, char *message_id, size_t size) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += tu_timeout_ms(10000) / 1000;
    pthread_mutex_lock(&g_last.mu);
    while (__atomic_load_n(&g_sent, __ATOMIC_SEQ_CST) <= before &&
           pthread_cond_timedwait(&g_last.cond, &g_last.mu, &deadline) == 0) {}
    snprintf(message_id, size, "%s", __atomic_load_n(&g_sent, __ATOMIC_SEQ_CST) > before ? g_last.message_id : "");
    pthread_mutex_unlock(&g_last.mu);
}

static int wait_sent(int n, int timeout_ms) {
    for (int waited = 0; __atomic_load_n(&g_sent, __ATOMIC_SEQ_CST) < n && waited < timeout_ms; waited += 10)
        tu_sleep_ms(10);
    return __atomic_load_n(&g_sent, __ATOMIC_SEQ_CST);
}

static char *start(phoneauth_engine *e, int i) {
    char phone[32];
    snprintf(phone, sizeof phone, "+1650555%04d", 3000 + i);
    int st;
    json_t *v = tu_callj(e, "verifyPhoneNumber", json_pack("{s:s}", "phoneNumber", phone), &st);
    char *vid = EXPECT_OK(v, st) && tu_str(v, "verificationId") ? strdup(tu_str(v, "verificationId")) : NULL;
    json_decref(v);
    return vid;
}

int main(void) {
    char *dir = tu_tmpdir();
    pthread_t acceptor = start_server();
    char config[1024];
    snprintf(config, sizeof config,
             "{\"quotas\": {\"smsPerNumberPerHour\": 0, \"smsPerIpPerHour\": 0, \"smsPerProjectPerDay\": 0},"
             " \"sms\": {\"provider\": null, \"concurrency\": 4, \"retryBackoffMs\": 10, \"providers\": [{\"type\": \"twilio\","
             " \"baseUrl\": \"http://127.0.0.1:%d\", \"accountSid\": \"" ACCOUNT "\", \"authToken\": \"" TOKEN "\","
             " \"from\": \"+15005550006\"}]}}",
             g_srv.port);
    int n = tu_memcheck() ? 8 : 24;

    /* Every message delivered, as Twilio's API wants it, on connections kept open. */
    phoneauth_engine *e = tu_open(dir, "providers", config);
    if (!e) return tu_finish();
    CHECK(phoneauth_set_log_sink(e, sink, NULL) == PHONEAUTH_OK);
    char *first = NULL;
    for (int i = 0; i < n; i++) {
        char *vid = start(e, i);
        if (!first) first = vid; else free(vid);
    }
    CHECKF(wait_sent(n, tu_timeout_ms(10000)) == n, "%d of %d messages sent", g_sent, n);
    CHECKF(g_bad_events == 0, "%d codeSent events without the provider or its message ID", g_bad_events);
    CHECKF(server_requests() == n && srv_get(&g_srv.bad_requests) == 0, "%d requests, %d not as Twilio's API wants",
           server_requests(), srv_get(&g_srv.bad_requests));
    CHECKF(srv_get(&g_srv.connections) <= 4, "%d connections for %d requests with 4 senders", srv_get(&g_srv.connections), n);
    if (first) {
        int st;
        json_t *status = tu_callj(e, "getVerificationStatus", json_pack("{s:s}", "verificationId", first), &st);
        if (EXPECT_OK(status, st)) {
            CHECK(tu_str(status, "provider") && !strcmp(tu_str(status, "provider"), "twilio"));
            CHECK(tu_str(status, "providerMessageId") && !strncmp(tu_str(status, "providerMessageId"), "SM", 2));
        }
        json_decref(status);
    }
    free(first);
    /* The event comes after the outcome is recorded: read at once, the verification agrees with it. */
    enum { watched = 4 };
    for (int i = 0; i < watched; i++) {
        int before = __atomic_load_n(&g_sent, __ATOMIC_SEQ_CST), st;
        char *vid = start(e, 50 + i), message_id[64];
        wait_next_sent(before, message_id, sizeof message_id);
        json_t *status = vid ? tu_callj(e, "getVerificationStatus", json_pack("{s:s}", "verificationId", vid), &st) : NULL;
        if (status && EXPECT_OK(status, st)) {
            const char *recorded = tu_str(status, "providerMessageId");
            CHECKF(*message_id && recorded && !strcmp(recorded, message_id),
                   "codeSent told of %s before the store had it (it has %s)", message_id, recorded ? recorded : "none");
            CHECK(!strcmp(tu_str(status, "delivery") ? tu_str(status, "delivery") : "", "sent"));
        }
        json_decref(status);
        free(vid);
    }
    phoneauth_close(e);

    /* Closed with requests in flight: a later engine sends what this one left. */
    srv_set(&g_srv.delay_ms, 30);
    e = tu_open(dir, "providers", config);
    if (e) {
        for (int i = 0; i < n; i++) free(start(e, 100 + i));
        phoneauth_close(e);
    }
    srv_set(&g_srv.delay_ms, 0);
    int before = server_requests();
    CHECKF(before < 2 * n + watched, "%d requests: the close did not stop the queue", before - n - watched);
    e = tu_open(dir, "providers", config);
    if (e) {
        for (int waited = 0; server_requests() < 2 * n + watched && waited < tu_timeout_ms(10000); waited += 10) tu_sleep_ms(10);
        CHECKF(server_requests() >= 2 * n + watched, "%d of %d messages left by a closing engine were sent",
               server_requests() - before, 2 * n + watched - before);
        phoneauth_close(e);
    }

    /* A callback allowed 4 calls at once gets them. */
    tu_sms sms;
    tu_sms_init(&sms, NULL);
    tu_sms_set_delay(&sms, 20);
    e = tu_open(dir, "callback", "{\"sms\": {\"concurrency\": 4}, \"quotas\": {\"smsPerNumberPerHour\": 0, \"smsPerProjectPerDay\": 0}}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, tu_sms_sender, &sms) == PHONEAUTH_OK);
        for (int i = 0; i < 8; i++) free(start(e, 200 + i));
        CHECK(tu_sms_wait_calls(&sms, 8, tu_timeout_ms(5000)) == 8);
        CHECK(sms.overlapped);
        phoneauth_close(e);
    }
    tu_sms_destroy(&sms);

    /* The server's threads end when the engines' connections close. */
    shutdown(g_srv.listener, SHUT_RDWR);
    close(g_srv.listener);
    pthread_join(acceptor, NULL);
    pthread_mutex_lock(&g_srv.mu);
    for (int i = 0; i < 100 && g_srv.open_connections > 0; i++) {
        pthread_mutex_unlock(&g_srv.mu);
        tu_sleep_ms(20);
        pthread_mutex_lock(&g_srv.mu);
    }
    CHECKF(g_srv.open_connections == 0, "%d connections still open after every engine closed", g_srv.open_connections);
    pthread_mutex_unlock(&g_srv.mu);
    tu_rmtree(dir);
    free(dir);
    return tu_finish();
}
