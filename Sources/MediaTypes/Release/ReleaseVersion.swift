/// The release this source tree builds, as `MAJOR.MINOR.PATCH` (semantic versioning): the one
/// place it is written. The library gives it as `PushAttachVersion.current`; `pushattach
/// --version`, the man page, the default `User-Agent` (`FetchPolicy.userAgent`) and `make deb`
/// (which reads this file) take it from here.
///
///     ReleaseVersion.current   // "0.2.0"
package enum ReleaseVersion {
    package static let current = "0.2.0"
}
