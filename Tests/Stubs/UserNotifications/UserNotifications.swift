// A stand-in for Apple's UserNotifications framework, for type-checking PushAttachExtension's
// glue (Sources/PushAttachExtension/Service) on Linux: `Scripts/extension-glue-check` compiles it
// into a folder of its own and type-checks the extension's sources against it, so a misspelt call
// fails `make test`. It declares only what the glue uses, with the signatures Apple documents
// (developer.apple.com/documentation/usernotifications, as of iOS 18); nothing here runs, and it
// is never built into the package (a `UserNotifications` module on the build's search path would
// turn the glue on in the real Linux build).
import Foundation

/// `class UNNotificationServiceExtension` (iOS 10+).
open class UNNotificationServiceExtension: NSObject {
    public override init() { super.init() }

    /// `func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void)`
    open func didReceive(
        _ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        contentHandler(request.content)
    }

    /// `func serviceExtensionTimeWillExpire()`
    open func serviceExtensionTimeWillExpire() {}
}

/// `class UNNotificationRequest` (iOS 10+).
open class UNNotificationRequest: NSObject {
    /// `var identifier: String { get }`
    open var identifier: String { fatalError("stub") }
    /// `@NSCopying var content: UNNotificationContent { get }`
    open var content: UNNotificationContent { fatalError("stub") }

    @available(*, unavailable)
    public override init() { fatalError("stub") }
}

/// `class UNNotificationContent` (iOS 10+): `NSCopying`, `NSMutableCopying`.
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying {
    /// `var userInfo: [AnyHashable : Any] { get }`
    open var userInfo: [AnyHashable: Any] { fatalError("stub") }
    /// `var attachments: [UNNotificationAttachment] { get }`
    open var attachments: [UNNotificationAttachment] { fatalError("stub") }

    public func copy(with zone: NSZone? = nil) -> Any { fatalError("stub") }
    public func mutableCopy(with zone: NSZone? = nil) -> Any { fatalError("stub") }
}

/// `class UNMutableNotificationContent` (iOS 10+).
open class UNMutableNotificationContent: UNNotificationContent {
    /// `var userInfo: [AnyHashable : Any] { get set }`
    open override var userInfo: [AnyHashable: Any] {
        get { fatalError("stub") }
        set { fatalError("stub") }
    }
    /// `var attachments: [UNNotificationAttachment] { get set }`
    open override var attachments: [UNNotificationAttachment] {
        get { fatalError("stub") }
        set { fatalError("stub") }
    }
}

/// `class UNNotificationAttachment` (iOS 10+). Made only by the throwing initialiser.
open class UNNotificationAttachment: NSObject {
    /// `convenience init(identifier: String, url URL: URL, options: [AnyHashable : Any]? = nil) throws`
    public convenience init(identifier: String, url URL: URL, options: [AnyHashable: Any]? = nil) throws {
        self.init(stub: ())
    }

    private init(stub: ()) { super.init() }

    @available(*, unavailable)
    public override init() { fatalError("stub") }

    /// `var identifier: String { get }`
    open var identifier: String { fatalError("stub") }
    /// `var url: URL { get }`
    open var url: URL { fatalError("stub") }
    /// `var type: String { get }`
    open var type: String { fatalError("stub") }
}

/// `let UNNotificationAttachmentOptionsTypeHintKey: String` (iOS 10+).
public let UNNotificationAttachmentOptionsTypeHintKey: String = "UNNotificationAttachmentOptionsTypeHintKey"

extension FileManager {
    /// Foundation's `func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL?`
    /// on Apple platforms; swift-corelibs-foundation has no app groups, so it is declared here.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        fatalError("stub")
    }
}
