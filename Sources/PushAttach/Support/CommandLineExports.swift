import Fetch
import ImageCodecs
import Pipeline
import Verification

// What the `pushattach` command line uses beyond the public API, so that it imports `PushAttach`
// alone. These are `package`: reachable from the targets of this package (the CLI, the
// benchmarks, the tests), never promised to a library user.
//
// The public API has no call yet for what they do: a batch run from INPUT files (URL lists,
// JSON lines, push payloads) that keeps `manifest.jsonl`/`manifest.json` and can resume
// (`Preparer`), its progress line, the HTML contact sheet of a manifest (`BatchReport`), and
// the verifier's full table (`FileReport`) with the decode and strictness switches of `verify`.

// Batch runs with a manifest (`pushattach prepare`).
package typealias Preparer = Pipeline.Preparer
package typealias PrepareOptions = Pipeline.PrepareOptions
package typealias PrepareEvent = Pipeline.PrepareEvent
package typealias PrepareSummary = Pipeline.PrepareSummary
package typealias PrepareFailure = Pipeline.PrepareFailure
package typealias ManifestEntry = Pipeline.ManifestEntry
package typealias PayloadConventions = Pipeline.PayloadConventions
package typealias ContainerLock = Pipeline.ContainerLock
package typealias ProgressMeter = Pipeline.ProgressMeter
package typealias InputCounter = Pipeline.InputCounter

// Sharded runs and their merge (`prepare --shard`, `pushattach merge`).
package typealias Shard = Pipeline.Shard
package typealias ShardError = Pipeline.ShardError
package typealias Manifest = Pipeline.Manifest

// The contact sheet of a container (`pushattach report`).
package typealias BatchReport = Pipeline.BatchReport

// The per-file verdict with every field (`pushattach verify`).
package typealias Verifier = Verification.Verifier
package typealias VerifyOptions = Verification.VerifyOptions
package typealias CheckPolicy = Verification.CheckPolicy
package typealias FileReport = Verification.FileReport

/// The C libraries linked in, as they report themselves at run time (`pushattach --version`).
package enum LinkedLibraries {
    /// libpng's version ("1.6.39").
    package static var png: String { CodecVersions.png }
    /// libwebp's decoder version, packed as 0xMMmmpp.
    package static var webpDecoder: Int { CodecVersions.webpDecoder }
    /// libheif's version ("1.15.1"), the HEIC/HEIF/AVIF decoder.
    package static var heif: String { CodecVersions.heif }
    /// libcurl's version line ("libcurl/7.88.1 OpenSSL/3.0.15 zlib/1.2.13 …").
    package static var curl: String { FetchVersion.curl }
}
