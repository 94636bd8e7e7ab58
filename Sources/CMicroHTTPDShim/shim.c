#include "CMicroHTTPDShim.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct pa_callbacks {
    pa_httpd_uri_callback uri;
    pa_httpd_request_callback request;
    pa_httpd_completed_callback completed;
    void *cls;
};

struct pa_httpd {
    struct MHD_Daemon *daemon;
    struct pa_callbacks callbacks;
    // Returned by MHD_quiesce_daemon: closed only after MHD_stop_daemon, as its documentation asks
    // (with internal threads, a worker may still use it until then).
    MHD_socket quiesced;
};

static void *log_uri(void *cls, const char *uri, struct MHD_Connection *connection) {
    (void)connection;
    struct pa_callbacks *callbacks = cls;
    return callbacks->uri(callbacks->cls, uri);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url,
                                      const char *method, const char *version, const char *upload_data,
                                      size_t *upload_data_size, void **context) {
    (void)url;
    (void)version;
    (void)upload_data;
    struct pa_callbacks *callbacks = cls;
    // A body is read and dropped (no route takes one): libmicrohttpd refuses to queue an answer
    // while a body is still arriving, so the request is handed over only on the call after it.
    if (upload_data_size != NULL && *upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    return callbacks->request(callbacks->cls, connection, method, *context) ? MHD_YES : MHD_NO;
}

static void completed(void *cls, struct MHD_Connection *connection, void **context,
                      enum MHD_RequestTerminationCode code) {
    (void)connection;
    (void)code;
    struct pa_callbacks *callbacks = cls;
    if (*context != NULL) callbacks->completed(callbacks->cls, *context);
    *context = NULL;
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
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_TURBO;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, access_handler, callbacks,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)settings->listen_fd,
        MHD_OPTION_THREAD_POOL_SIZE, settings->threads,
        MHD_OPTION_CONNECTION_LIMIT, settings->connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, settings->per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, settings->idle_timeout,
        MHD_OPTION_URI_LOG_CALLBACK, log_uri, callbacks,
        MHD_OPTION_NOTIFY_COMPLETED, completed, callbacks,
        MHD_OPTION_END);
    if (daemon == NULL) {
        free(server);
        return NULL;
    }
    server->daemon = daemon;
    server->quiesced = MHD_INVALID_SOCKET;
    return server;
}

void pa_httpd_quiesce(pa_httpd *server) {
    if (server->quiesced == MHD_INVALID_SOCKET) server->quiesced = MHD_quiesce_daemon(server->daemon);
}

void pa_httpd_stop(pa_httpd *server) {
    MHD_stop_daemon(server->daemon);
    if (server->quiesced != MHD_INVALID_SOCKET) close(server->quiesced);
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
