import LecternProtocol

/// The shows (`RoomEffect.show`, `.showWall`) asked of the stage and not yet reported, in
/// the order asked: what settles each pane's screen change. Data only.
///
/// Every show carries the whole wall, with every pane as it is being changed to, so a newer
/// show carries what an older one still being shown was asking for. The stage may drop the
/// older one when the newer comes ("superseded", reported as a failure): that older change
/// then stands or falls with the newer. So a report settles, in order:
/// - a success: every show asked before it (their pages are on the wall with it), then it;
/// - a failure with a newer show still out: nothing yet, it waits for the newer one;
/// - a failure with no newer show out: the failures waiting before it, then it.
/// A report of a show not (or no longer) out is passed on as it is.
struct WallShows: Equatable, Sendable {
    /// Shows out, oldest first, each with its failure if it failed (waiting for a newer one).
    private(set) var out: [Out] = []
    struct Out: Equatable, Sendable {
        var op: Int
        var failed: LecternError?
    }
    /// At most this many shows are remembered (a show the stage never reports, such as a
    /// plan of a clip alone on the old stage, must not pile up).
    static let limit = 64

    mutating func asked(_ op: Int) {
        out.append(Out(op: op, failed: nil))
        if out.count > Self.limit { out.removeFirst(out.count - Self.limit) }
    }

    /// The reports the room acts on now, in order, for the stage's report on `op`.
    mutating func reported(_ op: Int, error: LecternError?) -> [(op: Int, error: LecternError?)] {
        guard let i = out.firstIndex(where: { $0.op == op }) else { return [(op, error)] }
        guard let error else {
            let settled = out[...i].map { (op: $0.op, error: nil as LecternError?) }
            out.removeFirst(i + 1)
            return settled
        }
        if i < out.count - 1 {
            out[i].failed = error
            return []
        }
        let before = out[..<i]
        let settled = before.compactMap { e in e.failed.map { (op: e.op, error: $0 as LecternError?) } } + [(op: op, error: error as LecternError?)]
        out = before.filter { $0.failed == nil }
        return settled
    }
}
