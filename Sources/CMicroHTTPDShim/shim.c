#include "CMicroHTTPDShim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct pa_callbacks {
    pa_httpd_uri_callback uri;
    pa_httpd_request_callback request;
    pa_httpd_completed_callback completed;
    void *cls;
};

// One open connection, for the request-head deadline: libmicrohttpd's own timeout measures
// inactivity only, so a client sending a byte now and then would hold its connection forever.
struct pa_connection {
    struct pa_connection *previous, *next;
    int fd;
    // CLOCK_MONOTONIC milliseconds by which a whole request head must have arrived; 0 while a
    // request is being handled (parked requests included: the request deadline bounds those).
    _Atomic int64_t deadline;
};

struct pa_httpd {
    struct MHD_Daemon *daemon;
    struct pa_callbacks callbacks;
    // Returned by MHD_quiesce_daemon: closed only after MHD_stop_daemon, as its documentation asks
    // (with internal threads, a worker may still use it until then).
    MHD_socket quiesced;
    // The open connections, and the thread that closes those past their head deadline.
    pthread_mutex_t connections_lock;
    struct pa_connection *connections;
    int64_t header_timeout_ms;
    int64_t idle_timeout_ms;
    pthread_t watcher;
    pthread_cond_t wake;
    int watching;
    int stopping;
};

static int64_t now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static struct pa_connection *connection_record(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

// Called by libmicrohttpd when a connection is set up and when it is cleaned up; the second
// comes before its socket is closed, so the watcher never shuts down a descriptor reused since.
static void notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
    pa_httpd *server = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct pa_connection *record = calloc(1, sizeof *record);
        if (record == NULL || info == NULL) {
            free(record);
            *socket_context = NULL;
            return;
        }
        record->fd = info->connect_fd;
        atomic_store(&record->deadline, server->header_timeout_ms > 0 ? now_ms() + server->header_timeout_ms : 0);
        pthread_mutex_lock(&server->connections_lock);
        record->next = server->connections;
        if (server->connections != NULL) server->connections->previous = record;
        server->connections = record;
        pthread_mutex_unlock(&server->connections_lock);
        *socket_context = record;
    } else {
        struct pa_connection *record = *socket_context;
        if (record == NULL) return;
        pthread_mutex_lock(&server->connections_lock);
        if (record->previous != NULL) record->previous->next = record->next;
        else server->connections = record->next;
        if (record->next != NULL) record->next->previous = record->previous;
        pthread_mutex_unlock(&server->connections_lock);
        free(record);
        *socket_context = NULL;
    }
}

// Closes (shutdown(2): libmicrohttpd then sees the end and cleans up on its own thread) every
// connection whose request head is late, four times a second.
static void *watch_heads(void *cls) {
    pa_httpd *server = cls;
    pthread_mutex_lock(&server->connections_lock);
    while (!server->stopping) {
        int64_t now = now_ms();
        for (struct pa_connection *at = server->connections; at != NULL; at = at->next) {
            int64_t deadline = atomic_load(&at->deadline);
            if (deadline != 0 && now >= deadline) {
                atomic_store(&at->deadline, 0);
                shutdown(at->fd, SHUT_RDWR);
            }
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250 * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec += 1;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&server->wake, &server->connections_lock, &until);
    }
    pthread_mutex_unlock(&server->connections_lock);
    return NULL;
}

static void *log_uri(void *cls, const char *uri, struct MHD_Connection *connection) {
    (void)connection;
    pa_httpd *server = cls;
    return server->callbacks.uri(server->callbacks.cls, uri);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **context) {
    (void)url;
    (void)version;
    (void)upload_data;
    pa_httpd *server = cls;
    // The head is here: no deadline while the request is handled.
    struct pa_connection *record = connection_record(connection);
    if (record != NULL) atomic_store(&record->deadline, 0);
    // A body (only with a framing the handler refuses on the first call, which closes the
    // connection after the answer) is dropped: libmicrohttpd refuses to queue an answer while
    // a body is still arriving.
    if (upload_data_size != NULL && *upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    return server->callbacks.request(server->callbacks.cls, connection, method, *context) ? MHD_YES : MHD_NO;
}

static void completed(void *cls, struct MHD_Connection *connection, void **context,
                      enum MHD_RequestTerminationCode code) {
    pa_httpd *server = cls;
    // Kept alive, the connection may idle, then must send its next head in time.
    struct pa_connection *record = connection ? connection_record(connection) : NULL;
    if (record != NULL && server->header_timeout_ms > 0)
        atomic_store(&record->deadline, now_ms() + server->idle_timeout_ms + server->header_timeout_ms);
    if (*context != NULL)
        server->callbacks.completed(server->callbacks.cls, *context, code == MHD_REQUEST_TERMINATED_COMPLETED_OK);
    *context = NULL;
}

struct framing_scan {
    int content_lengths;
    int problem;
};

static int is_token_character(unsigned char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return 1;
    return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static enum MHD_Result scan_header(void *cls, enum MHD_ValueKind kind, const char *name, const char *value) {
    (void)kind;
    struct framing_scan *scan = cls;
    size_t length = strlen(name);
    for (size_t i = 0; i < length; i++) {
        if (!is_token_character((unsigned char)name[i])) {
            scan->problem = PA_FRAMING_HEADER_NAME;
            return MHD_NO;
        }
    }
    if (length == 0) {
        scan->problem = PA_FRAMING_HEADER_NAME;
        return MHD_NO;
    }
    if (strcasecmp(name, "Transfer-Encoding") == 0) {
        scan->problem = PA_FRAMING_TRANSFER_ENCODING;
        return MHD_NO;
    }
    if (strcasecmp(name, "Content-Length") == 0) {
        scan->content_lengths += 1;
        int zero = value != NULL && value[0] != 0;
        for (const char *at = value; zero && *at != 0; at++) zero = *at == '0';
        if (scan->content_lengths > 1 || !zero) {
            scan->problem = PA_FRAMING_CONTENT_LENGTH;
            return MHD_NO;
        }
    }
    return MHD_YES;
}

int pa_httpd_framing_problem(struct MHD_Connection *connection) {
    struct framing_scan scan = {0, PA_FRAMING_NONE};
    MHD_get_connection_values(connection, MHD_HEADER_KIND, scan_header, &scan);
    return scan.problem;
}

pa_httpd *pa_httpd_start(const pa_httpd_settings *settings, pa_httpd_uri_callback uri,
                         pa_httpd_request_callback request, pa_httpd_completed_callback done, void *cls) {
    pa_httpd *server = calloc(1, sizeof *server);
    if (server == NULL) return NULL;
    struct pa_callbacks *callbacks = &server->callbacks;
    callbacks->uri = uri;
    callbacks->request = request;
    callbacks->completed = done;
    callbacks->cls = cls;
    pthread_mutex_init(&server->connections_lock, NULL);
    pthread_cond_init(&server->wake, NULL);
    server->header_timeout_ms = (int64_t)settings->header_timeout_ms;
    server->idle_timeout_ms = (int64_t)settings->idle_timeout * 1000;
    server->quiesced = MHD_INVALID_SOCKET;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, access_handler, server,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)settings->listen_fd,
        MHD_OPTION_THREAD_POOL_SIZE, settings->threads,
        MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, settings->idle_timeout,
        MHD_OPTION_URI_LOG_CALLBACK, log_uri, server,
        MHD_OPTION_NOTIFY_COMPLETED, completed, server,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, server,
        MHD_OPTION_END);
    if (daemon == NULL) {
        pthread_cond_destroy(&server->wake);
        pthread_mutex_destroy(&server->connections_lock);
        free(server);
        return NULL;
    }
    server->daemon = daemon;
    if (server->header_timeout_ms > 0 && pthread_create(&server->watcher, NULL, watch_heads, server) == 0)
        server->watching = 1;
    return server;
}

void pa_httpd_quiesce(pa_httpd *server) {
    if (server->quiesced == MHD_INVALID_SOCKET) server->quiesced = MHD_quiesce_daemon(server->daemon);
}

void pa_httpd_stop(pa_httpd *server) {
    if (server->watching) {
        pthread_mutex_lock(&server->connections_lock);
        server->stopping = 1;
        pthread_cond_signal(&server->wake);
        pthread_mutex_unlock(&server->connections_lock);
        pthread_join(server->watcher, NULL);
    }
    MHD_stop_daemon(server->daemon);
    if (server->quiesced != MHD_INVALID_SOCKET) close(server->quiesced);
    pthread_cond_destroy(&server->wake);
    pthread_mutex_destroy(&server->connections_lock);
    free(server);
}

int pa_httpd_listen(const char *host, const char *port, int *bound_port, int *errno_out, char *message,
                    size_t message_size) {
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int status = getaddrinfo(host, port, &hints, &found);
    if (status != 0) {
        snprintf(message, message_size, "getaddrinfo: %s", gai_strerror(status));
        *errno_out = 0;
        return -1;
    }
    int fd = -1;
    const char *call = "socket";
    for (struct addrinfo *at = found; at != NULL; at = at->ai_next) {
        fd = socket(at->ai_family, at->ai_socktype | SOCK_CLOEXEC, at->ai_protocol);
        if (fd < 0) { call = "socket"; continue; }
        int on = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        if (at->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
        if (bind(fd, at->ai_addr, at->ai_addrlen) != 0) { call = "bind"; goto next; }
        if (listen(fd, 1024) != 0) { call = "listen"; goto next; }
        struct sockaddr_storage bound;
        socklen_t length = sizeof bound;
        if (getsockname(fd, (struct sockaddr *)&bound, &length) != 0) { call = "getsockname"; goto next; }
        *bound_port = bound.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&bound)->sin6_port)
                                                  : ntohs(((struct sockaddr_in *)&bound)->sin_port);
        freeaddrinfo(found);
        return fd;
    next:
        *errno_out = errno;
        close(fd);
        fd = -1;
    }
    if (*errno_out == 0) *errno_out = errno;
    snprintf(message, message_size, "%s", call);
    freeaddrinfo(found);
    return -1;
}

int pa_httpd_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return -1;
    const struct sockaddr *address = info->client_addr;
    const void *raw = address->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)address)->sin6_addr
                                                     : (const void *)&((const struct sockaddr_in *)address)->sin_addr;
    return inet_ntop(address->sa_family, raw, buffer, (socklen_t)size) == NULL ? -1 : 0;
}
