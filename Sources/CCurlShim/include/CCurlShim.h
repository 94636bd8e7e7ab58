#ifndef PUSHATTACH_CCURLSHIM_H
#define PUSHATTACH_CCURLSHIM_H
#include <curl/curl.h>
/* Typed wrappers over libcurl's variadic calls, which Swift cannot call. */
#endif
