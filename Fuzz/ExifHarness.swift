#if FUZZING
    import ImageEngine

    /// The EXIF orientation reader: JPEG segment walk, then the TIFF IFD walk (also fed directly).
    let exifHarness = Harness(name: "exif") { bytes in
        _ = try? ExifOrientation.read(jpeg: bytes)
        if bytes.first == 0x49 || bytes.first == 0x4D {  // "II" / "MM": a bare TIFF block
            _ = try? ExifOrientation.read(tiff: bytes)
        }
    }
#endif
