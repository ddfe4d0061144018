import Sandbox

/// The URL a failed download was fetching.
enum TransferURLKey: SandboxErrorKey { typealias Value = String }
/// How a failed or cancelled download continues.
enum ResumeDataKey: SandboxErrorKey { typealias Value = ResumeData }

extension SandboxError {
    /// The URL involved in a download's failure, if any.
    public var url: String? {
        get { self[TransferURLKey.self] }
        set { self[TransferURLKey.self] = newValue }
    }

    /// How to continue a failed or cancelled download from the bytes already on disk; `nil` when
    /// it cannot continue — the `NSURLSessionDownloadTaskResumeData` of iOS.
    public var resumeData: ResumeData? {
        get { self[ResumeDataKey.self] }
        set { self[ResumeDataKey.self] = newValue }
    }

    /// A download's failure of `code` at `url`, located at the caller.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: a sentence for a person that names the URL or file and the remedy.
    ///   - url: the URL involved.
    ///   - path: the file involved, relative to the container's home, if any.
    ///   - underlying: what lay beneath, e.g. the HTTP client's error.
    ///   - resumeData: how to continue the download, when it can continue.
    ///   - file: the raising file; the caller's by default.
    ///   - line: the raising line; the caller's by default.
    package init(
        _ code: Code,
        _ message: String,
        url: String?,
        path: String? = nil,
        underlying: Underlying? = nil,
        resumeData: ResumeData? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.init(code, message, path: path, underlying: underlying, file: file, line: line)
        self.url = url
        self.resumeData = resumeData
    }

    /// The same error with `resumeData` attached.
    func with(resumeData: ResumeData?) -> SandboxError {
        var copy = self
        copy.resumeData = resumeData
        return copy
    }

    /// A failure of the file system beneath a download, with the core's code and path kept and its
    /// error underneath.
    static func fileSystem(
        _ error: SandboxError, doing action: String, file: String = #fileID, line: Int = #line
    ) -> SandboxError {
        SandboxError(
            error.code, "Could not \(action): \(error.message)", path: error.path, underlying: .error(error),
            file: file, line: line)
    }
}
