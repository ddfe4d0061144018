import Logging
import Sandbox
import SystemPackage

extension DeadPropertyStore {
    /// Applies a PROPPATCH's operations to the item at `path` in order, all or nothing (RFC 4918
    /// §9.2): when one fails, the ones before it are undone and the item keeps its properties.
    ///
    /// - Returns: the status of each property named, for the `207` response: all `200` on
    ///   success; otherwise the failed one's status and `424 Failed Dependency` for the others.
    ///   A live property is `403` (`cannot-modify-protected-property`); a value over
    ///   ``maximumValueSize``, a property past ``maximumPropertyCount``, a full file system, an
    ///   attribute too large for it (ext4 holds about 4 KiB per item) or one without extended
    ///   attributes is `507`; another file-system failure has its own status.
    /// - Throws: ``/SandboxCore/SandboxError`` when the item cannot be read (``/SandboxCore/SandboxError/Code/notFound``…), or
    ///   ``SandboxCore/SandboxError/Code/internalError`` when undoing fails (logged).
    package func apply(
        _ operations: [ProppatchRequest.Operation], at path: ContainerPath
    ) throws(SandboxError)
        -> [PropertyName: Int]
    {
        var statuses: [PropertyName: Int] = [:]
        for operation in operations { statuses[operation.propertyName] = 200 }
        var present = Set(try attributeNames(at: path))
        var previous: [String: [UInt8]?] = [:]
        var done: [String] = []
        for operation in operations {
            let name = operation.propertyName
            let attribute = DeadPropertyRecord.attributeName(of: name)
            if previous[attribute] == nil { previous[attribute] = .some(try rawValue(attribute, at: path)) }
            let status = perform(operation, attribute: attribute, at: path, present: &present)
            if status == 200 {
                done.append(attribute)
                continue
            }
            try undo(done, previous: previous, at: path)
            for key in statuses.keys { statuses[key] = 424 }
            statuses[name] = status
            return statuses
        }
        return statuses
    }

    /// Performs one operation; its status (200 when done).
    private func perform(
        _ operation: ProppatchRequest.Operation, attribute: String, at path: ContainerPath, present: inout Set<String>
    ) -> Int {
        if LiveProperties.isProtected(operation.propertyName) { return 403 }
        do throws(SandboxError) {
            switch operation {
            case .set(let name, let value):
                guard value.utf8.count <= Self.maximumValueSize else { return 507 }
                guard present.contains(attribute) || present.count < maximumPropertyCount else { return 507 }
                try root.setExtendedAttribute(
                    named: attribute, to: DeadPropertyRecord(name: name, value: value).encoded, at: path)
                present.insert(attribute)
            case .remove:
                try root.removeExtendedAttribute(named: attribute, at: path)
                present.remove(attribute)
            }
            return 200
        } catch {
            logger.notice(
                "A PROPPATCH operation failed", metadata: ["path": "\(path)", "error": "\(error)"])
            return Self.status(of: error, path: path)
        }
    }

    /// Restores the attributes in `done` to their `previous` values, last first.
    private func undo(_ done: [String], previous: [String: [UInt8]?], at path: ContainerPath) throws(SandboxError) {
        for attribute in done.reversed() {
            do throws(SandboxError) {
                if let value = previous[attribute] ?? nil {
                    try root.setExtendedAttribute(named: attribute, to: value, at: path)
                } else {
                    try root.removeExtendedAttribute(named: attribute, at: path)
                }
            } catch {
                logger.error(
                    "Could not undo a failed PROPPATCH", metadata: ["path": "\(path)", "error": "\(error)"])
                throw SandboxError(
                    .internalError,
                    "Could not restore the properties of '/\(path)' after a failed PROPPATCH; see the server's log.",
                    path: path.description, underlying: .wrapping(error))
            }
        }
    }

    /// The status of a file-system failure while writing an attribute: `507` when it does not
    /// fit (`ENOSPC`, `E2BIG`, `ERANGE`) or cannot be stored at all, else what the core's code means.
    private static func status(of error: SandboxError, path: ContainerPath) -> Int {
        if error.code == .noSpace || error.code == .unsupported { return 507 }
        if let failure = error.cause,
            [Errno.argListTooLong, .outOfRange].contains(failure.errno)
        {
            return 507
        }
        return SandboxError.fileSystem(error, path: path.description, doing: "store a property of").code.httpStatus
    }
}

extension ProppatchRequest.Operation {
    /// The property the operation sets or removes.
    package var propertyName: PropertyName {
        switch self {
        case .set(let name, _), .remove(let name): name
        }
    }
}
