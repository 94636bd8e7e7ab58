import MediaTypes

// The names of the modules underneath that a user of `PushAttachExtension` meets in its API, so
// `import PushAttachExtension` is the only import: media formats and kinds (in
// `AttachmentRefusal`) and Apple's rules (in `AttachmentLoader.Settings`).

/// A media format, from the bytes: JPEG, PNG, GIF, WebP, HEIC, MP3, MP4, … (`.unknown`).
///
///     if case .needsPreparing(let format, _, _)? = loaded.refusal { print(format.displayName) }   // "WebP"
public typealias MediaFormat = MediaTypes.MediaFormat

/// Image, audio or movie: the three kinds of attachment, each with its own cap.
public typealias MediaCategory = MediaTypes.MediaCategory

/// Apple's rules for attachments: the formats iOS shows and the byte cap of each kind.
///
///     var settings = AttachmentLoader.Settings()
///     settings.rules.imageByteCap = 5_000_000
public typealias AppleRules = MediaTypes.AppleRules
