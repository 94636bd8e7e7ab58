#if canImport(UserNotifications)
    import Foundation
    import UserNotifications

    /// A Notification Service Extension that attaches the media a push names, as a file iOS
    /// takes: an app's `NotificationService.swift` subclasses it and is done.
    ///
    ///     import PushAttachExtension
    ///
    ///     final class NotificationService: PushAttachNotificationService {}
    ///
    /// With settings (an app group's `Images/` folder, a shorter budget, the hosts media may
    /// come from):
    ///
    ///     final class NotificationService: PushAttachNotificationService {
    ///         override var settings: Settings {
    ///             Settings(appGroup: "group.com.example.app", timeBudget: .seconds(20), allowedHosts: ["*.example.com"])
    ///         }
    ///     }
    ///
    /// `didReceive` loads the attachment with `AttachmentLoader` within `settings.timeBudget`
    /// and delivers the content with it (`UNNotificationAttachment`, with its
    /// `UNNotificationAttachmentOptionsTypeHintKey`), or without it when there is none.
    /// `serviceExtensionTimeWillExpire` delivers the content as it is at once (the best attempt)
    /// and cancels the download. The content is delivered once, whichever comes first; a file
    /// that arrives after that is removed.
    open class PushAttachNotificationService: UNNotificationServiceExtension {
        /// What the service loads and where it puts the file.
        public struct Settings: Sendable, Hashable {
            /// The app group whose container gets the files, in `Images/`; nil (or a group the
            /// extension is not entitled to) uses the temporary folder.
            public var appGroup: String?
            /// How long the load may take. The system gives the extension about 30 s in all;
            /// `pushattach serve` answers within its own 20 s deadline. Default 25 s.
            public var timeBudget: Duration
            /// The loader's settings: allowed hosts, redirects, Apple's caps.
            public var loader: AttachmentLoader.Settings

            /// Host patterns media may come from (`cdn.example.com`, `*.example.com`); empty
            /// allows any host. The same as `loader.allowedHosts`.
            public var allowedHosts: [String] {
                get { loader.allowedHosts }
                set { loader.allowedHosts = newValue }
            }

            /// The temporary folder, 25 s, any host, unless given.
            public init(appGroup: String? = nil, timeBudget: Duration = .seconds(25), allowedHosts: [String] = []) {
                self.appGroup = appGroup
                self.timeBudget = timeBudget
                loader = AttachmentLoader.Settings(allowedHosts: allowedHosts)
            }
        }

        /// The settings a push is handled with, read once per push. Override to set them.
        open var settings: Settings { Settings() }

        private let delivery = Delivery()

        open override func didReceive(
            _ request: UNNotificationRequest,
            withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
        ) {
            guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else {
                contentHandler(request.content)
                return
            }
            let settings = self.settings
            // The payload is read here, as a value the load's task can take.
            let payload = NotificationPayload(userInfo: request.content.userInfo)
            let folder = Self.folder(appGroup: settings.appGroup)
            let loader = AttachmentLoader(settings: settings.loader)
            let delivery = self.delivery
            delivery.begin(content: content, handler: contentHandler)
            delivery.track(
                Task {
                    let loaded = await loader.load(payload, into: folder, within: settings.timeBudget)
                    delivery.finish(with: loaded)
                })
        }

        open override func serviceExtensionTimeWillExpire() {
            delivery.expire()
        }

        /// `Images/` in the app group's container, or the temporary folder.
        static func folder(appGroup: String?) -> URL {
            if let appGroup,
                let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup)
            {
                return container.appendingPathComponent("Images", isDirectory: true)
            }
            return FileManager.default.temporaryDirectory
        }
    }

    /// One push's content and handler, handed over once: by the load when it finishes, or by
    /// the system's expiry, which also cancels the load. The system may call the two on
    /// different threads; a lock orders them.
    private final class Delivery: @unchecked Sendable {
        private let lock = NSLock()
        private var content: UNMutableNotificationContent?
        private var handler: ((UNNotificationContent) -> Void)?
        private var task: Task<Void, Never>?

        func begin(content: UNMutableNotificationContent, handler: @escaping (UNNotificationContent) -> Void) {
            lock.lock()
            defer { lock.unlock() }
            self.content = content
            self.handler = handler
        }

        /// The load's task, cancelled at once when the content was already delivered.
        func track(_ task: Task<Void, Never>) {
            lock.lock()
            let delivered = handler == nil
            if !delivered { self.task = task }
            lock.unlock()
            if delivered { task.cancel() }
        }

        /// Attaches what the load gave and delivers; a file that comes after the delivery is
        /// removed (nothing will use it).
        func finish(with loaded: LoadedAttachment) {
            lock.lock()
            guard let content, let handler else {
                lock.unlock()
                if let file = loaded.fileURL { try? FileManager.default.removeItem(at: file) }
                return
            }
            if let file = loaded.fileURL, let typeHint = loaded.typeHint {
                do {
                    let attachment = try UNNotificationAttachment(
                        identifier: loaded.identifier, url: file,
                        options: [UNNotificationAttachmentOptionsTypeHintKey: typeHint])
                    content.attachments = [attachment]
                } catch {
                    // iOS refused the file after all: the notification goes without it.
                    try? FileManager.default.removeItem(at: file)
                }
            }
            (self.content, self.handler, task) = (nil, nil, nil)
            lock.unlock()
            handler(content)
        }

        /// Delivers the content as it is now and cancels the load.
        func expire() {
            lock.lock()
            let (content, handler, task) = (self.content, self.handler, self.task)
            (self.content, self.handler, self.task) = (nil, nil, nil)
            lock.unlock()
            task?.cancel()
            if let content, let handler { handler(content) }
        }
    }
#endif
