/// How every file is judged, in one place: Apple's rules, the pixel budget, how strict to be
/// with claims and codec warnings, whether damaged images are used, and how messages name the
/// settings. `verify`, `prepare`, the engine and the library all read this one value, so they
/// cannot disagree on a file.
///
///     var policy = AttachmentPolicy()
///     policy.acceptDamaged = true        // use what decodes of a truncated photo, with a warning
///     policy.rules.imageByteCap = 5_000_000
///     configuration.policy = policy      // AttachmentPreparer; AttachmentVerifier(policy: policy)
public struct AttachmentPolicy: Sendable, Hashable {
    /// Apple's types, caps and per-image decoded budget.
    public var rules: AppleRules
    /// Largest width × height decoded, checked on the header before any pixel memory is taken.
    public var pixelBudget: Int
    /// A claim (Content-Type, `media_type`, the name's extension) that disagrees with the bytes,
    /// a malformed Exif block and every codec warning are errors rather than warnings. Strict
    /// wins over `acceptDamaged`: a damaged image always has a codec warning.
    public var strict: Bool
    /// Damaged image data (a scan cut short, corrupt entropy-coded data) is used for what
    /// decodes, with a warning, instead of being refused as corrupt (105).
    public var acceptDamaged: Bool
    /// How reasons spell the settings they name: the library's API names unless given others
    /// (the command line gives its flags).
    public var settingNames: SettingNames

    /// The default policy: Apple's documented rules, a 50-megapixel budget, lenient claims and
    /// codecs, damaged images refused, the library's setting names.
    public init(
        rules: AppleRules = .standard, pixelBudget: Int = 50_000_000, strict: Bool = false, acceptDamaged: Bool = false,
        settingNames: SettingNames = .library
    ) {
        self.rules = rules
        self.pixelBudget = pixelBudget
        self.strict = strict
        self.acceptDamaged = acceptDamaged
        self.settingNames = settingNames
    }
}
