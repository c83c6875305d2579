import LecternCore

/// TEMPORARY (issue 26, layout branch): until the display loop (display branch) shows a
/// whole `WallPlan`, the old stage shows the plan's first pane that holds a scene, full
/// screen, and reports the op shown. A plan of a clip alone (the wall back to one pane
/// while a clip plays) is left to the clip, which has the output already; the room does
/// not wait for that op. The lead deletes this file when the display branch lands.
extension StageWorker {
    func showWall(op: Int, _ plan: WallPlan) {
        for case .scene(let s) in plan.panes {
            return show(op: op, s)
        }
    }
}
