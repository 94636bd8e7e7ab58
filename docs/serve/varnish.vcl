vcl 4.1;
# Varnish in front of two `pushattach serve` replicas sharing one cache folder (docs/SERVE.md, "A
# CDN in front"). `make serve-cdn-check` runs this file as it is, with the two ports replaced by
# free ones. Varnish keys by the full URL (the signed link, query included) and keeps what serve's
# Cache-Control allows; requests for one link that arrive while it is fetched wait for that one
# fetch (Varnish's waiting list), so a herd reaches serve as one request.
import directors;
import std;

backend serve_a {
    .host = "127.0.0.1";
    .port = "8081";
    # Above serve's --deadline (20 s): serve answers 504 with Retry-After itself first.
    .first_byte_timeout = 25s;
    .between_bytes_timeout = 10s;
    # /readyz turns 503 as soon as a replica drains: Varnish stops sending it requests.
    .probe = { .url = "/readyz"; .interval = 2s; .timeout = 1s; .window = 3; .threshold = 2; .initial = 3; }
}

backend serve_b {
    .host = "127.0.0.1";
    .port = "8082";
    .first_byte_timeout = 25s;
    .between_bytes_timeout = 10s;
    .probe = { .url = "/readyz"; .interval = 2s; .timeout = 1s; .window = 3; .threshold = 2; .initial = 3; }
}

sub vcl_init {
    new replicas = directors.round_robin();
    replicas.add_backend(serve_a);
    replicas.add_backend(serve_b);
}

sub vcl_recv {
    # Only the links go out; /healthz, /readyz and /metrics stay on the inside.
    if (req.url !~ "^/a/") {
        return (synth(404));
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (synth(405));
    }
    set req.backend_hint = replicas.backend();
    # A link names its content: cookies and credentials change nothing (and would stop caching).
    unset req.http.Cookie;
    unset req.http.Authorization;
    return (hash);
}

sub vcl_backend_response {
    # 200 (and the 304s Varnish answers from it): Cache-Control: public, max-age=--max-age.
    # 404 and 422 are refusals serve keeps for --rejection-ttl: public, max-age=<what is left>,
    # the same on the first answer and later ones. Varnish caches 404 by itself; 422 is not on its
    # list of cacheable statuses, so take its max-age here.
    if (beresp.status == 422 && beresp.http.Cache-Control ~ "max-age=[0-9]+") {
        set beresp.ttl = std.duration(regsub(beresp.http.Cache-Control, "^.*max-age=([0-9]+).*$", "\1") + "s", 0s);
    }
    # 502, 503 and 504 say no-store: never kept, and not remembered as uncacheable for long, so
    # the next request for the link reaches serve at once (a retry after a 504 joins the
    # preparation there, or finds it cached) and waits in Varnish's waiting list again soon.
    if (beresp.status >= 500) {
        set beresp.ttl = 1s;
        set beresp.uncacheable = true;
        return (deliver);
    }
}
