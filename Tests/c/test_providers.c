/* test_providers.c: the built-in HTTP provider and concurrent delivery, from C, with threads.
 *
 * A small HTTP/1.1 server on loopback (a thread per connection, keep-alive) stands in for
 * Twilio. Checked:
 *   - an engine with a Twilio provider and sms.concurrency 4 delivers every message, as Twilio's
 *     API wants it (path, Basic authentication, form body), records the provider's message ID,
 *     and keeps its connections open (fewer connections than requests);
 *   - a codeSent event is told once the outcome is in the store: the verification read as soon
 *     as the event comes shows the provider and its message ID;
 *   - closing an engine while requests are in flight returns, sends only those (the server holds
 *     its answers until the close has begun, so the rest of the queue is certainly still waiting),
 *     and a later engine sends what it left; under valgrind, ASan/LSan and TSan (make
 *     check-memory, check-sanitizers) nothing leaks or races in the libcurl handles, the sender
 *     threads or the outcomes they record;
 *   - a callback with sms.concurrency 4 is called on 4 threads at once.
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
    int hold_until;   /* > 0: answers wait until that many marked threads have ended */
    int held;         /* answers that waited (or wait) so */
} g_srv = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, -1, 0, 0, 0, 0, 0, 0, 0};

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
        int hold = g_srv.hold_until;
        if (hold) g_srv.held++;
        pthread_cond_broadcast(&g_srv.cv);
        pthread_mutex_unlock(&g_srv.mu);
        if (hold)
            CHECKF(tu_wait_marked_ended(hold, tu_timeout_ms(10000)) >= hold,
                   "request %d was held, and no close began", n);
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

/* Waits until *field >= want (or the timeout); returns its value. */
static int srv_wait(const int *field, int want) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += tu_timeout_ms(10000) / 1000;
    pthread_mutex_lock(&g_srv.mu);
    while (*field < want && pthread_cond_timedwait(&g_srv.cv, &g_srv.mu, &deadline) == 0) {}
    int n = *field;
    pthread_mutex_unlock(&g_srv.mu);
    return n;
}

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
        tu_mark_thread(); /* the engine's bookkeeping thread: it ends once a close has begun */
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

/* ---- an SMS callback ------------------------------------------------------------------------- */

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls, running, most;
} g_calls = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

/* Returns once 4 calls have run at the same time (or after a timeout): whether the engine makes 4
 * calls at once is then seen however the threads are scheduled. */
static int gathering_sender(void *ctx, const char *message_json) {
    (void)ctx;
    (void)message_json;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += tu_timeout_ms(10000) / 1000;
    pthread_mutex_lock(&g_calls.mu);
    g_calls.calls++;
    if (++g_calls.running > g_calls.most) g_calls.most = g_calls.running;
    pthread_cond_broadcast(&g_calls.cv);
    while (g_calls.most < 4 && pthread_cond_timedwait(&g_calls.cv, &g_calls.mu, &deadline) == 0) {}
    g_calls.running--;
    pthread_mutex_unlock(&g_calls.mu);
    return 0;
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

    /* Closed with 4 requests in flight and the rest of the queue waiting: the server holds its
     * answers until the close has begun (this engine's bookkeeping thread has ended), so however
     * slow the machine, the close comes before any answer. It sends only those 4. */
    int left = 0;
    e = tu_open(dir, "providers", config);
    if (e) {
        CHECK(phoneauth_set_log_sink(e, sink, NULL) == PHONEAUTH_OK);
        /* The codeSent of a first message marks the bookkeeping thread (see sink). */
        int sent = __atomic_load_n(&g_sent, __ATOMIC_SEQ_CST);
        char message_id[64];
        free(start(e, 99));
        wait_next_sent(sent, message_id, sizeof message_id);
        CHECKF(*message_id, "no codeSent for the first message of the closing engine");
        int base = server_requests();
        srv_set(&g_srv.hold_until, tu_marked_ended() + 1);
        for (int i = 0; i < n; i++) free(start(e, 100 + i));
        CHECKF(srv_wait(&g_srv.held, 4) == 4, "%d requests in flight, want the 4 senders'", srv_get(&g_srv.held));
        phoneauth_close(e);
        srv_set(&g_srv.hold_until, 0);
        int in_close = server_requests() - base;
        CHECKF(in_close == 4, "%d of %d queued requests sent by a closing engine: the close did not stop the queue "
               "after the 4 in flight", in_close, n);
        left = n - in_close;
    }
    /* A later engine sends what the closing one left. */
    int before = server_requests();
    e = tu_open(dir, "providers", config);
    if (e) {
        CHECKF(srv_wait(&g_srv.requests, before + left) >= before + left, "%d of %d messages left by a closing engine "
               "were sent", server_requests() - before, left);
        phoneauth_close(e);
    }

    /* A callback allowed 4 calls at once gets them: each call waits until 4 have run at once. */
    e = tu_open(dir, "callback", "{\"sms\": {\"concurrency\": 4}, \"quotas\": {\"smsPerNumberPerHour\": 0, \"smsPerProjectPerDay\": 0}}");
    if (e) {
        CHECK(phoneauth_set_sms_sender(e, gathering_sender, NULL) == PHONEAUTH_OK);
        for (int i = 0; i < 8; i++) free(start(e, 200 + i));
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += tu_timeout_ms(20000) / 1000;
        pthread_mutex_lock(&g_calls.mu);
        while (g_calls.calls < 8 && pthread_cond_timedwait(&g_calls.cv, &g_calls.mu, &deadline) == 0) {}
        CHECKF(g_calls.calls == 8 && g_calls.most == 4, "%d calls, at most %d at once (want 8, 4 at once)",
               g_calls.calls, g_calls.most);
        pthread_mutex_unlock(&g_calls.mu);
        phoneauth_close(e);
    }

    /* The server's threads end when the engines' connections close. */
    shutdown(g_srv.listener, SHUT_RDWR);
    close(g_srv.listener);
    pthread_join(acceptor, NULL);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += tu_timeout_ms(10000) / 1000;
    pthread_mutex_lock(&g_srv.mu);
    while (g_srv.open_connections > 0 && pthread_cond_timedwait(&g_srv.cv, &g_srv.mu, &deadline) == 0) {}
    CHECKF(g_srv.open_connections == 0, "%d connections still open after every engine closed", g_srv.open_connections);
    pthread_mutex_unlock(&g_srv.mu);
    tu_rmtree(dir);
    free(dir);
    return tu_finish();
}
