internal import CCurlShim

/// Owns one libcurl easy handle; a worker thread keeps one for its life, so its connection
/// cache carries keep-alive connections from one transfer to the next.
///
///     let handle = try EasyHandle()
///     let outcome = handle.perform(hop)
final class EasyHandle {
    let raw: UnsafeMutableRawPointer

    init?() {
        guard pa_global_init_once() == CURLE_OK, let raw = curl_easy_init() else { return nil }
        self.raw = raw
    }

    deinit { curl_easy_cleanup(raw) }
}

/// The C-callable callbacks. Each gets the `TransferContext` back from its userdata.
enum TransferCallbacks {
    static let write: pa_data_callback = { data, size, count, userdata in
        guard let userdata else { return 0 }
        let context = Unmanaged<TransferContext>.fromOpaque(userdata).takeUnretainedValue()
        let total = size * count
        return context.receive(UnsafeRawBufferPointer(start: data, count: total)) ? total : 0
    }

    static let header: pa_data_callback = { data, size, count, userdata in
        guard let userdata else { return 0 }
        let context = Unmanaged<TransferContext>.fromOpaque(userdata).takeUnretainedValue()
        let total = size * count
        let bytes = UnsafeRawBufferPointer(start: data, count: total)
        let line = String(decoding: bytes, as: UTF8.self)
        return context.header(line: line) ? total : 0
    }

    /// `downloaded` counts body bytes as they arrive, before any Content-Encoding is decoded.
    static let progress: pa_xferinfo_callback = { userdata, _, downloaded, _, _ in
        guard let userdata else { return 1 }
        let context = Unmanaged<TransferContext>.fromOpaque(userdata).takeUnretainedValue()
        return context.progress(wireBytes: Int(downloaded)) ? 0 : 1
    }

    static let decide: pa_address_decider = { userdata, family, address, port in
        guard let userdata else { return 1 }
        let context = Unmanaged<TransferContext>.fromOpaque(userdata).takeUnretainedValue()
        var ip: IPAddress?
        if let address {
            switch family {
            case AF_INET: ip = IPAddress(bytes: UnsafeBufferPointer(start: address, count: 4))
            case AF_INET6: ip = IPAddress(bytes: UnsafeBufferPointer(start: address, count: 16))
            default: ip = nil
            }
        }
        return context.refuses(address: ip, port: Int(port)) ? 1 : 0
    }
}
