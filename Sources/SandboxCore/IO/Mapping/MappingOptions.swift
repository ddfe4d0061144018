import Glibc

/// What a mapping may do with its file.
public enum MappingAccess: Sendable, Hashable {
    /// Read only; the mapping is private (`MAP_PRIVATE`, `PROT_READ`).
    case readOnly
    /// Read and write; stores go to the file (`MAP_SHARED`), made durable by
    /// ``MappedFile/synchronize()``. Not atomic: a crash can leave some stores written.
    case readWrite
}

/// How the pages of a mapping will be used (`madvise`): a hint that shapes read-ahead.
public enum MappingAdvice: Sendable, Hashable {
    /// No particular order (`MADV_NORMAL`).
    case normal
    /// From start to end: read ahead aggressively, drop pages behind (`MADV_SEQUENTIAL`).
    case sequential
    /// In no order: read ahead little (`MADV_RANDOM`).
    case random
    /// Soon: start reading the pages in now (`MADV_WILLNEED`).
    case willNeed
    /// Not soon: the pages may be dropped from memory (`MADV_DONTNEED`); a private mapping reads
    /// them from the file again.
    case dontNeed

    var rawValue: CInt {
        switch self {
        case .normal: MADV_NORMAL
        case .sequential: MADV_SEQUENTIAL
        case .random: MADV_RANDOM
        case .willNeed: MADV_WILLNEED
        case .dontNeed: MADV_DONTNEED
        }
    }
}
