internal import CCurlShim
public enum FetchVersion { public static var curl: String { String(cString: curl_version()) } }
