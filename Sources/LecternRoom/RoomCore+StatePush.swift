import LecternModel
import LecternProtocol

/// Pushing the state to devices, each at the pace its `StatePacer` allows (§14.1): a change
/// marks the state stale and offers it to every registered device; what a device's window
/// holds back is owed and goes out when the window ends.
extension RoomCore {
    /// Pushes the whole state to every registered device: encoded once (when first sent);
    /// paced per client (`StatePacer`, §14.1): within a client's window the pushes fold
    /// into one, sent at the window's end with the newest state; a peer that doesn't read
    /// (a phone asleep on the Wi-Fi) gets the newest state when it reads again, not every
    /// intermediate one piling up.
    /// `viewers` false: a change only the presenters and moderator see (a poll's live
    /// results, a viewer coming or going) is not pushed to the audience.
    /// `prompt`: a change the floor's devices must see at once (the screen, the floor):
    /// sent to them past their window; viewers stay paced.
    mutating func pushState(viewers: Bool = true, prompt: Bool = false) {
        pushes.changed(viewers: viewers)
        timerWarned = timer.warning(at: wallTime)
        for p in peers.values.sorted(by: { $0.id < $1.id }) where p.isRegistered && !p.closing && (viewers || p.viewer == nil) {
            offerState(to: p, prompt: prompt && p.viewer == nil)
        }
    }

    /// The newest state to `p` now, or owed to it (when its window ends or it reads again).
    mutating func offerState(to peer: Peer, prompt: Bool = false) {
        guard let p = live(peer.id) else { return }
        if peers[p.id]!.statePacer.offer(now: now, writable: p.writable, prompt: prompt, interval: pushes.interval) {
            send(bytes: stateBytes(for: p), to: p)
        } else if p.writable, let due = peers[p.id]!.statePacer.dueAt(interval: pushes.interval) {
            pushes.owe(at: due)
        }
    }

    /// Owed pushes whose window has ended go out (with the newest state).
    mutating func sendOwedStates() {
        guard pushes.takeDue(now: now) else { return }
        for p in peers.values.sorted(by: { $0.id < $1.id }) where p.statePacer.owed && !p.closing {
            sendPendingState(p)
        }
    }

    /// `p`'s owed state, if its window allows (else its due time is remembered).
    mutating func sendPendingState(_ peer: Peer) {
        guard let p = live(peer.id) else { return }
        if peers[p.id]!.statePacer.poll(now: now, writable: p.writable, interval: pushes.interval) {
            send(bytes: stateBytes(for: p), to: p)
        } else if p.writable, let due = peers[p.id]!.statePacer.dueAt(interval: pushes.interval) {
            pushes.owe(at: due)
        }
    }
}
