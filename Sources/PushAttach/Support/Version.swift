import MediaTypes

/// PushAttach's version: `pushattach --version` prints it, the man page carries it, the
/// default `User-Agent` sends it and `make deb` names the Debian package after it.
///
///     PushAttachVersion.current   // "0.2.0"
public enum PushAttachVersion {
    /// The release this source tree builds, as `MAJOR.MINOR.PATCH` (semantic versioning).
    public static let current = ReleaseVersion.current
}
