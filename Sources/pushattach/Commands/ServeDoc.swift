/// `pushattach serve --help`, the man page's section and the completions.
enum ServeDoc {
    static var doc: CommandDoc {
        CommandDoc(
            title: "pushattach serve",
            summary: "Answer GET /a/<signature>/<base64url(source URL)>[?type=T&thumb=N] with the attachment prepared from the source: the same pipeline as 'prepare', cached on disk, one preparation however many requests arrive at once.",
            overview: [
                .paragraph(
                    "A push names a signed link on this server instead of the origin's URL; the Notification Service Extension downloads it and gets a file iOS accepts, with its type hint in X-Attachment-Type-Hint. The signature is base64url (no padding) of HMAC-SHA256(key, '/<base64url(source URL)>' then '?<query>' when there is one); the key is --key-file's bytes or PUSHATTACH_SIGNING_KEY's. Answers: 200 with Content-Type, a strong ETag (the file's SHA-256), Cache-Control and X-Attachment-Type-Hint; 304 for If-None-Match; 400 a link that does not parse (or carries credentials), or a request with Transfer-Encoding, a Content-Length other than 0 or a malformed header name (then the connection is closed); 403 bad signature or source not allowed; 404 the origin's 404; 422 a file that cannot be an attachment; 502 other origin failures (with the origin's Retry-After); 503 over --max-pending (with Retry-After) or draining; 504 past --deadline, with Retry-After: the preparation goes on under --prepare-timeout, and a retry joins it. Every error body is JSON: {\"error\":\"rejected\",\"errorCode\":101,\"reason\":\"...\",\"retryAfter\":null,\"status\":422}."
                ),
                .paragraph(
                    "Replicas sharing --cache make one preparation per link between them (a lease per link in the folder). Also: /healthz, /readyz (503 while draining) and /metrics (Prometheus text). SIGTERM or SIGINT drains: no new connections, requests in flight finish for up to --grace seconds, preparations left are cancelled, exit 0. SIGHUP reopens --access-log. docs/SERVE.md covers systemd, nginx, Kubernetes, origins that want credentials, a CDN in front (docs/serve/varnish.vcl) and the extension's side."
                ),
            ],
            usage: "pushattach serve --cache DIR [--listen HOST:PORT] [--key-file FILE | --allow-unsigned] [options]",
            options: ServeCommand.Options.all,
            notes: [
                .paragraph(
                    "Make links with 'pushattach link URL --type image --base https://HOST' or the library (AttachmentLink(source:typeHint:).path(signedBy:)). By hand: SEG=$(printf '%s' \"$URL\" | base64 -w0 | tr '+/' '-_' | tr -d '='); SIG=$(printf '%s' \"/$SEG?type=image\" | openssl dgst -sha256 -hmac \"$KEY\" -binary | base64 -w0 | tr '+/' '-_' | tr -d '='); the link is /a/$SIG/$SEG?type=image."
                )
            ],
            exitStatus: "0 stopped by SIGTERM or SIGINT after draining, 2 cannot listen or open the cache, 64 usage error.",
            examples: [
                "PUSHATTACH_SIGNING_KEY=$(cat key) pushattach serve --cache /var/cache/pushattach --listen 0.0.0.0:8080",
                "pushattach serve --cache /tmp/c --allow-unsigned --allow-private-networks --listen 127.0.0.1:8080",
            ])
    }
}
