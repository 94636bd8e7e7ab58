#ifndef PUSHATTACH_MHD_SHIM_H
#define PUSHATTACH_MHD_SHIM_H
// libmicrohttpd's variadic calls (MHD_start_daemon, MHD_get_connection_info), kept in C, and the
// listening socket: Swift sees plain functions with fixed arguments.
#include <stddef.h>
#include <stdint.h>

struct MHD_Daemon;
struct MHD_Connection;

/// Called with the request's whole URI (path and query, as sent) when its head is parsed; returns
/// the request's context, handed to the other two callbacks.
typedef void *(*pa_httpd_uri_callback)(void *cls, const char *uri);
/// Called once the request head is parsed, again once the request has arrived, and again after
/// a resume; returns 1 to keep the connection, 0 to close it.
typedef int (*pa_httpd_request_callback)(void *cls, struct MHD_Connection *connection, const char *method,
                                         void *context);
/// Called once the request is done: `completed` is 1 when its answer was sent whole, 0 when it
/// ended otherwise (the connection gone or timed out, a send or a read of the answer's file
/// failed, the daemon stopping).
typedef void (*pa_httpd_completed_callback)(void *cls, void *context, int completed);

typedef struct pa_httpd_settings {
    int listen_fd;                    // from pa_httpd_listen
    unsigned int threads;             // worker threads, each with its own epoll
    unsigned int connection_limit;    // open connections at once
    unsigned int per_ip_limit;        // open connections from one address (0: none)
    unsigned int idle_timeout;        // seconds a connection may be idle
    unsigned int header_timeout_ms;   // a whole request head must arrive within this of the connection's
                                      // start (or of the previous answer plus idle_timeout); 0: no bound
} pa_httpd_settings;

/// What `pa_httpd_framing_problem` found in a request head.
enum {
    PA_FRAMING_NONE = 0,
    /// A Transfer-Encoding header (no route takes a body).
    PA_FRAMING_TRANSFER_ENCODING = 1,
    /// A Content-Length other than 0, or more than one.
    PA_FRAMING_CONTENT_LENGTH = 2,
    /// A header name that is not an HTTP token (`Transfer-Encoding ` with a space before the colon).
    PA_FRAMING_HEADER_NAME = 3,
};

/// The first framing problem of the request's head (a PA_FRAMING_ value), from its headers as
/// libmicrohttpd parsed them; call it from the request callback.
int pa_httpd_framing_problem(struct MHD_Connection *connection);

/// A running daemon and its callbacks.
typedef struct pa_httpd pa_httpd;

/// Starts the daemon on `settings->listen_fd` (it then owns the descriptor); NULL on failure.
pa_httpd *pa_httpd_start(const pa_httpd_settings *settings, pa_httpd_uri_callback uri,
                         pa_httpd_request_callback request, pa_httpd_completed_callback completed, void *cls);

/// Stops accepting connections (MHD_quiesce_daemon); requests already open go on. The listening
/// socket is closed by pa_httpd_stop. Safe to call more than once.
void pa_httpd_quiesce(pa_httpd *server);

/// Stops the daemon (open connections are closed) and frees it.
void pa_httpd_stop(pa_httpd *server);

/// A listening TCP socket on `host`:`port` ("0" for any free port), SO_REUSEADDR, backlog 1024.
/// Returns the descriptor and sets `*bound_port`; -1 with `errno_out` and `call` naming the failed
/// call (or the getaddrinfo error text in `message`) on failure.
int pa_httpd_listen(const char *host, const char *port, int *bound_port, int *errno_out, char *message,
                    size_t message_size);

/// The client's address as text into `buffer` ("127.0.0.1", "::1"); 0 on success.
int pa_httpd_client_address(struct MHD_Connection *connection, char *buffer, size_t size);

#endif
