/// PushAttach's version, in the one place it is written down: `pushattach --version` prints it,
/// the man page carries it, and `make deb` names the Debian package after it (it reads this file).
///
///     PushAttachVersion.current   // "0.2.0"
public enum PushAttachVersion {
    /// The release this source tree builds, as `MAJOR.MINOR.PATCH` (semantic versioning).
    public static let current = "0.2.0"
}
