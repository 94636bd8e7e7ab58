import Fetch
import ImageCodecs
import ImageEngine
// The names a user of `PushAttach` needs, from the modules underneath, so `import PushAttach`
// is the only import: media formats, Apple's rules and error codes come from MediaTypes
// (re-exported whole); the fetch policy, the engine's limits, the pixel size and the underlying
// errors of `AttachmentError` by alias. Nothing else of the modules underneath is public to a
// user of `PushAttach`, and the command line is such a user: it reaches no `package` declaration
// (`Scripts/public-api-check` type-checks it outside the package to prove it).
@_exported import MediaTypes
import Pipeline

/// How downloads are made: redirects, private networks (the address guard), allowed hosts,
/// deadlines, retries, the spool threshold. `AttachmentPreparer.Configuration.fetch`.
///
///     var configuration = AttachmentPreparer.Configuration.default
///     configuration.fetch.allowedHosts = ["cdn.example.com"]
public typealias FetchPolicy = Fetch.FetchPolicy

/// The image engine's limits: byte cap, long side, JPEG quality, pixel budget.
/// `AttachmentPreparer.Configuration.limits`.
///
///     var configuration = AttachmentPreparer.Configuration.default
///     configuration.limits.maxLongSide = 1024
public typealias ProcessingLimits = ImageEngine.ProcessingLimits

/// A size in pixels, upright (orientation applied).
///
///     let size = PixelSize(width: 256, height: 171)
///     size.width   // 256
public typealias PixelSize = ImageEngine.Size

/// Why a download failed (`AttachmentError.Underlying.fetch`): every case names the URL.
///
///     if case .fetch(.httpStatus(_, let status, _)) = error.underlying { print(status) }   // 404
public typealias FetchError = Fetch.FetchError

/// Why the folder could not be opened or written (`AttachmentError.Underlying.container`).
///
///     if case .container(let cause) = error.underlying { print(cause.isFatal) }
public typealias ContainerError = Pipeline.ContainerError

/// Why the image engine failed (`AttachmentError.Underlying.processing`).
///
///     if case .processing(.cannotFit(let cap, _)) = error.underlying { print(cap) }
public typealias ProcessingError = ImageEngine.ProcessingError

/// A codec's error, the payload of `ProcessingError.codec`: what libjpeg-turbo, libpng,
/// libwebp, libheif or giflib refused, or the pixel budget.
public typealias CodecError = ProcessingError.Codec

/// Why a body could not be spooled to disk, the payload of `FetchError.spoolFailed`.
public typealias SpoolFailure = Fetch.SpoolFailure
