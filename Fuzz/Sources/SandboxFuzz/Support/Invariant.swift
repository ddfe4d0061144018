/// Stops the run with `message` when an invariant of a parser's result does not hold: libFuzzer
/// reports the trap as a crash and keeps the input that caused it.
func invariant(
    _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) {
    if !condition { fatalError("invariant broken: \(message())", file: file, line: line) }
}

/// Checks that a refusal is precise: one of the codes the API documents, and a message.
func expectRefusal(code: String, among allowed: Set<String>, message: String, for what: String) {
    invariant(allowed.contains(code), "\(what) failed with the undocumented code '\(code)': \(message)")
    invariant(!message.isEmpty, "\(what) failed with an empty message (code '\(code)')")
}
