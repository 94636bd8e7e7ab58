#ifndef PUSHATTACH_CCURLSHIM_H
#define PUSHATTACH_CCURLSHIM_H
#include <curl/curl.h>
#include <stddef.h>

/* Typed wrappers over libcurl's variadic calls, which Swift cannot call.
 *
 *     CURL *h = curl_easy_init();
 *     pa_easy_setopt_string(h, CURLOPT_URL, "https://example.com/a.jpg");
 *     pa_easy_setopt_long(h, CURLOPT_NOSIGNAL, 1L);
 *
 * Each wrapper returns the CURLcode of the underlying call. */

/* curl_global_init(CURL_GLOBAL_DEFAULT) exactly once, thread-safe; returns its result. */
CURLcode pa_global_init_once(void);

CURLcode pa_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode pa_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode pa_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode pa_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);

/* Typed callback setters. The userdata pointer goes to the matching *DATA option. */
typedef size_t (*pa_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*pa_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                    curl_off_t ultotal, curl_off_t ulnow);
CURLcode pa_easy_set_write_callback(CURL *handle, pa_data_callback callback, void *userdata);
CURLcode pa_easy_set_header_callback(CURL *handle, pa_data_callback callback, void *userdata);
/* Also turns CURLOPT_NOPROGRESS off, or the callback is never called. */
CURLcode pa_easy_set_xferinfo_callback(CURL *handle, pa_xferinfo_callback callback, void *userdata);

/* The connect-time address guard.
 *
 * The decider is called with the address libcurl is about to connect to (after DNS, per
 * attempt, so DNS rebinding cannot dodge it): family is AF_INET or AF_INET6, address
 * points at 4 or 16 network-order bytes, port is in host order. Returning non-zero
 * refuses: the trampoline then returns CURL_SOCKET_BAD and the transfer fails with
 * CURLE_COULDNT_CONNECT; the decider records its reason in its own userdata. */
typedef int (*pa_address_decider)(void *userdata, int family, const unsigned char *address,
                                  int port);
typedef struct pa_socket_guard {
    pa_address_decider decide;
    void *userdata;
} pa_socket_guard;
/* Installs the opensocket and closesocket trampolines; guard must outlive the transfer. */
CURLcode pa_easy_set_socket_guard(CURL *handle, pa_socket_guard *guard);

CURLcode pa_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
CURLcode pa_easy_getinfo_double(CURL *handle, CURLINFO info, double *value);
CURLcode pa_easy_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value);
CURLcode pa_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value);

#endif
