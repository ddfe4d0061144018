import Foundation
import Logging
import Sandbox
import SystemPackage

extension DeadPropertyStore {
    /// Applies a PROPPATCH's operations to the item at `path` in order, all or nothing (RFC 4918
    /// §9.2): when one fails, the ones before it are undone and the item keeps its properties.
    ///
    /// Setting `DAV:lastmodified` (Unix seconds) or `DAV:getlastmodified` (an HTTP date) sets the
    /// item's modification time (``UploadedModificationTime``), as ownCloud and Nextcloud do for
    /// rclone and their clients; a value that is not such a time is `409`, removing either `403`.
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
        var done: [Change] = []
        for operation in operations {
            let name = operation.propertyName
            let before = try current(of: name, at: path)
            let status = perform(operation, at: path, present: &present)
            if status == 200 {
                done.append(before)
                continue
            }
            try undo(done, at: path)
            for key in statuses.keys { statuses[key] = 424 }
            statuses[name] = status
            return statuses
        }
        return statuses
    }

    /// Whether PROPPATCH refuses to change `name` (403 `cannot-modify-protected-property`): the
    /// live properties but the modification time's (``UploadedModificationTime/properties``,
    /// which set the time, never a record), and `oc:checksums`, which the server computes.
    package static func isProtected(_ name: PropertyName) -> Bool {
        isComputed(name) && !UploadedModificationTime.properties.contains(name)
    }

    /// Whether the server computes `name`'s value (the live properties and `oc:checksums`): it
    /// is never a dead property, never written as one, and a record of it is never served.
    package static func isComputed(_ name: PropertyName) -> Bool {
        LiveProperties.isProtected(name) || name == ContentChecksums.propertyName
    }

    /// What an operation changes, as it was before: to put it back.
    private enum Change {
        /// A dead property's attribute and its value (`nil`: there was none).
        case attribute(String, [UInt8]?)
        /// The item's modification time.
        case modificationDate(Date)
    }

    /// What setting or removing `name` changes, as it is now.
    private func current(of name: PropertyName, at path: ContainerPath) throws(SandboxError) -> Change {
        if UploadedModificationTime.properties.contains(name) {
            guard let attributes = try root.attributes(at: path) else {
                throw SandboxError(.notFound, "'/\(path)' is gone.", path: path.description)
            }
            return .modificationDate(attributes.modificationDate)
        }
        let attribute = DeadPropertyRecord.attributeName(of: name)
        return .attribute(attribute, try rawValue(attribute, at: path))
    }

    /// Performs one operation; its status (200 when done).
    private func perform(
        _ operation: ProppatchRequest.Operation, at path: ContainerPath, present: inout Set<String>
    ) -> Int {
        let name = operation.propertyName
        if case .set(_, let value) = operation, UploadedModificationTime.properties.contains(name) {
            return setModificationDate(of: name, to: value, at: path)
        }
        if Self.isComputed(name) || UploadedModificationTime.properties.contains(name) { return 403 }
        let attribute = DeadPropertyRecord.attributeName(of: name)
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
            return failed(error, at: path)
        }
    }

    /// Sets the item's modification time from `value` of `name` (one of
    /// ``UploadedModificationTime/properties``): 200, or 409 when `value` is not a time.
    private func setModificationDate(of name: PropertyName, to value: String, at path: ContainerPath) -> Int {
        guard let date = UploadedModificationTime.value(of: name, value) else { return 409 }
        do throws(SandboxError) {
            try root.setDates(modification: date, at: path)
            return 200
        } catch {
            return failed(error, at: path)
        }
    }

    /// The status of a failed operation, logged.
    private func failed(_ error: SandboxError, at path: ContainerPath) -> Int {
        logger.notice("A PROPPATCH operation failed", metadata: ["path": "\(path)", "error": "\(error)"])
        return Self.status(of: error, path: path)
    }

    /// Puts back what `done` changed, last first.
    private func undo(_ done: [Change], at path: ContainerPath) throws(SandboxError) {
        for change in done.reversed() {
            do throws(SandboxError) {
                switch change {
                case .attribute(let attribute, let value?):
                    try root.setExtendedAttribute(named: attribute, to: value, at: path)
                case .attribute(let attribute, nil):
                    try root.removeExtendedAttribute(named: attribute, at: path)
                case .modificationDate(let date):
                    try root.setDates(modification: date, at: path)
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
