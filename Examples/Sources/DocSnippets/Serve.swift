// The samples of docs/SERVE.md: a signed link in Swift ("Links"), and the server embedded in a
// service ("The library"), verbatim inside functions of their own.
import AttachmentServer
import Foundation
import PushAttach

func signedLink(mediaURL: URL) throws -> [String: String] {
    var payload: [String: String] = [:]
    let signer = try AttachmentSigner(keyFile: URL(fileURLWithPath: "/etc/pushattach/key"))
    let path = AttachmentLink(source: mediaURL, typeHint: "image").path(signedBy: signer)
    payload["attachment-url"] = "https://attach.example.com" + path
    return payload
}

func embeddedServer() async throws {
    var configuration = AttachmentServer.Configuration(cacheFolder: URL(fileURLWithPath: "/var/cache/pushattach"))
    configuration.signer = try AttachmentSigner(keyFile: URL(fileURLWithPath: "/etc/pushattach/key"))
    configuration.preparer.fetch.allowedHosts = ["*.cdn.example.com"]
    let server = try AttachmentServer(configuration: configuration)
    // … on shutdown:
    await server.drain(grace: .seconds(10))
}
