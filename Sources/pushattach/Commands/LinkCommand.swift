import Foundation
import PushAttach

/// `pushattach link URL`: the signed `serve` link of a media URL, for scripts and by hand.
struct LinkCommand: Command {
    static let name = "link"
    static let abstract = "Print the signed 'serve' link of a media URL."

    enum Options {
        static let base = OptionInfo.value(
            "--base", "URL", "The server's base URL, put before the path.", default: "http://127.0.0.1:8080")
        static let type = OptionInfo.value("--type", "HINT", "The sender's type hint (type=): image, image/webp, public.jpeg, ...")
        static let thumb = OptionInfo.int(
            "--thumb", "N", "Ask for a thumbnail that fits N x N pixels (thumb=).", default: nil,
            in: AttachmentLink.thumbnailSizes)
        static let keyFile = OptionInfo.value(
            "--key-file", "FILE", "The signing key (as 'serve' reads it). Default: PUSHATTACH_SIGNING_KEY.",
            completion: .file)
        static let unsigned = OptionInfo.flag(
            "--unsigned", "Print an unsigned link (for a server run with --allow-unsigned).")
        static let all = [base, type, thumb, keyFile, unsigned, OptionInfo.help]
    }

    static var doc: CommandDoc {
        CommandDoc(
            title: "pushattach link",
            summary: "Print http(s)://BASE/a/<signature>/<base64url(URL)>[?type=…&thumb=…]: the link a push names instead of URL, answered by 'pushattach serve' with the prepared attachment.",
            usage: "pushattach link URL [--base URL] [--type HINT] [--thumb N] [--key-file FILE | --unsigned]",
            arguments: [ArgumentInfo(name: "URL", help: "The media URL (http or https).", completion: .none)],
            options: Options.all,
            exitStatus: "0 printed, 64 usage error (no key, not an http(s) URL, a URL with a user name or password).",
            examples: [
                "PUSHATTACH_SIGNING_KEY=$(cat key) pushattach link https://cdn.example.com/cat.webp --type image --base https://attach.example.com"
            ])
    }

    var link: AttachmentLink
    var base: String
    var signer: AttachmentSigner?

    init(_ arguments: ParsedArguments) throws {
        let command = "pushattach link"
        guard let text = arguments.positionals.first, arguments.positionals.count == 1 else {
            throw UsageError(command: command, message: "name one media URL")
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            url.host?.isEmpty == false
        else { throw UsageError(command: command, message: "'\(DisplayText.withoutCredentials(text))' is not an http(s) URL") }
        guard !AttachmentLink.carriesCredentials(url) else {
            throw UsageError(
                command: command,
                message:
                    "'\(DisplayText.withoutCredentials(text))' carries a user name or password, which every device the link is pushed to would see; link to the URL without them and give the server the origin's credentials instead: pushattach serve --origin-header HOST:Authorization:VALUE (or --origin-headers FILE)"
            )
        }
        link = AttachmentLink(
            source: url, typeHint: arguments.value(Options.type), thumbnailSize: try arguments.int(Options.thumb, command: command))
        base = arguments.value(Options.base) ?? "http://127.0.0.1:8080"
        while base.hasSuffix("/") { base.removeLast() }
        if arguments.flag(Options.unsigned) {
            signer = nil
        } else {
            signer = try ServeCommand.signer(keyFile: arguments.value(Options.keyFile), command: command)
            if signer == nil {
                throw UsageError(command: command, message: "no signing key: give --key-file FILE or set PUSHATTACH_SIGNING_KEY (or --unsigned)")
            }
        }
    }

    func run() async throws -> Int32 {
        Console.out(base + link.path(signedBy: signer))
        return ExitStatus.success
    }
}
