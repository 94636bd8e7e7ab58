#include "CCurlShim.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static pthread_once_t pa_global_once = PTHREAD_ONCE_INIT;
static CURLcode pa_global_result = CURLE_OK;

static void pa_global_init_body(void) { pa_global_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

CURLcode pa_global_init_once(void) {
    pthread_once(&pa_global_once, pa_global_init_body);
    return pa_global_result;
}

CURLcode pa_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pa_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pa_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pa_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode pa_easy_set_write_callback(CURL *handle, pa_data_callback callback, void *userdata) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(handle, CURLOPT_WRITEDATA, userdata);
}

CURLcode pa_easy_set_header_callback(CURL *handle, pa_data_callback callback, void *userdata) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(handle, CURLOPT_HEADERDATA, userdata);
}

CURLcode pa_easy_set_xferinfo_callback(CURL *handle, pa_xferinfo_callback callback, void *userdata) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
    if (rc != CURLE_OK) return rc;
    rc = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, userdata);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
}

/* CURLOPT_OPENSOCKETFUNCTION: vet the resolved address, then open the socket as curl would. */
static curl_socket_t pa_opensocket_trampoline(void *clientp, curlsocktype purpose,
                                              struct curl_sockaddr *address) {
    pa_socket_guard *guard = (pa_socket_guard *)clientp;
    if (purpose != CURLSOCKTYPE_IPCXN || address == NULL) return CURL_SOCKET_BAD;
    if (guard != NULL && guard->decide != NULL) {
        int refused = 1;
        if (address->family == AF_INET &&
            address->addrlen >= (unsigned int)sizeof(struct sockaddr_in)) {
            const struct sockaddr_in *in4 = (const struct sockaddr_in *)&address->addr;
            refused = guard->decide(guard->userdata, AF_INET,
                                    (const unsigned char *)&in4->sin_addr, ntohs(in4->sin_port));
        } else if (address->family == AF_INET6 &&
                   address->addrlen >= (unsigned int)sizeof(struct sockaddr_in6)) {
            const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&address->addr;
            refused = guard->decide(guard->userdata, AF_INET6,
                                    (const unsigned char *)&in6->sin6_addr, ntohs(in6->sin6_port));
        } else {
            /* Unix sockets and unknown families never reach a network we can vet. */
            refused = guard->decide(guard->userdata, address->family, NULL, 0);
        }
        if (refused) return CURL_SOCKET_BAD;
    }
    return socket(address->family, address->socktype, address->protocol);
}

static int pa_closesocket_trampoline(void *clientp, curl_socket_t item) {
    (void)clientp;
    return close(item);
}

CURLcode pa_easy_set_socket_guard(CURL *handle, pa_socket_guard *guard) {
    CURLcode rc = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, pa_opensocket_trampoline);
    if (rc != CURLE_OK) return rc;
    rc = curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, (void *)guard);
    if (rc != CURLE_OK) return rc;
    rc = curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, pa_closesocket_trampoline);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, (void *)guard);
}

CURLcode pa_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pa_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pa_easy_getinfo_offset(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

CURLcode pa_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}
