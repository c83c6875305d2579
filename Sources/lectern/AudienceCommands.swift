import ArgumentParser
import Foundation
import LecternClient
import LecternModel
import LecternProtocol

// The audience from the command line (docs/protocol.md §24): follow the wall as a viewer,
// polls, questions, the navigation lock.

struct FollowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow", abstract: "Follow the wall (as a viewer with --viewer): print each page change until interrupted.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws {
        try withConnection(connection) { c in
            var last: String?
            func show(_ s: Snapshot) {
                let line: String
                if let content = s.screen.content {
                    line = s.screen.blank != .none ? "blank (\(s.screen.blank.rawValue))" : "\(content.name) page \(s.screen.page) of \(s.screen.pageCount)"
                } else {
                    line = "idle screen"
                }
                if line != last { print(line); fflush(nil); last = line }
            }
            show(try c.state())
            while c.isOpen {
                guard let m = c.nextEvent(timeout: 3600) else { continue }
                if case .state(let s) = m { show(s) }
                if case .error(let e) = m { throw LecternConnection.ClientError.server(e) }
            }
        }
    }
}

struct PollCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "poll",
        abstract:
            "Polls: ask \"Question?\" A B C [--correct B] | --yesno | --text; ask --prepared N; prepare \"Question?\" A B C; prepared; unprepare N; close; results; reveal [--answer]; answer A|text.",
        discussion:
            "Asking, closing, revealing and preparing need the floor or the moderator; anyone may answer (viewers with --viewer). Prepared polls belong to the deck on the wall (or --deck ID)."
    )
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "ask, close, results, reveal or answer.") var action: String
    @Argument(help: "ask: the question, then the answers; answer: a letter (A–F), yes/no, or the text.") var words: [String] = []
    @Option(help: "ask: the correct answer (its letter or its text).") var correct: String?
    @Flag(help: "ask: a yes/no question.") var yesno = false
    @Flag(help: "ask: an open question (text answers).") var text = false
    @Flag(help: "reveal: show the correct answer too.") var answer = false
    @Option(help: "reveal: open-text answers to put on the wall (numbers from `poll results`, comma-separated).") var pick: String?
    @Option(help: "ask: the deck's prepared poll number N (from `poll prepared`).") var prepared: Int?
    @Option(help: "prepare, prepared, unprepare, ask --prepared: the deck (content id; default: the deck on the wall).") var deck: String?

    /// The deck meant: --deck, else the one on the wall.
    func deckID(_ c: LecternConnection) throws -> ContentID {
        if let deck {
            guard let id = ContentID(hex: deck) else { throw CLIError(code: "argument", message: "--deck takes a content id (64 hex digits).", exitCode: 1) }
            return id
        }
        guard let id = try c.state().screen.content?.id else { throw CLIError(code: "argument", message: "No deck is on the wall: give --deck ID.", exitCode: 1) }
        return id
    }

    /// A draft from the words and flags (ask and prepare).
    func draft() throws -> PollDraft {
        guard let q = words.first else { throw CLIError(code: "argument", message: "poll \(action) needs a question.", exitCode: 1) }
        let answers = Array(words.dropFirst())
        let kind: PollDraft.Kind = yesno ? .yesno : text ? .text : .choice
        var correctIndex: Int?
        if let correct {
            let list = kind == .yesno ? ["Yes", "No"] : answers
            correctIndex = Self.index(of: correct, in: list)
            guard correctIndex != nil else { throw CLIError(code: "argument", message: "--correct \(correct) is not one of the answers.", exitCode: 1) }
        }
        return PollDraft(question: q, kind: kind, answers: answers, correct: correctIndex)
    }

    /// The prepared polls of the deck, as the presenter's state has them (or none).
    func preparedList(_ c: LecternConnection, _ id: ContentID) throws -> [PollDraft] {
        let s = try c.state()
        guard s.screen.content?.id == id else {
            throw CLIError(code: "argument", message: "Show the deck to list or change its prepared polls (the state carries those of the deck on the wall).", exitCode: 1)
        }
        return s.audience?.prepared ?? []
    }

    func run() throws {
        try withConnection(connection) { c in
            switch action {
            case "ask":
                if let n = prepared {
                    _ = try c.request(.pollAskPrepared(content: deck == nil ? nil : try deckID(c), index: n - 1))
                } else {
                    _ = try c.request(.pollAsk(try draft()))
                }
                if let p = try c.state().audience?.poll { print("poll \(p.id) asked") }
            case "prepare":
                let id = try deckID(c)
                let list = try preparedList(c, id) + [try draft()]
                _ = try c.request(.pollPrepare(content: id, list))
                print("prepared poll \(list.count)")
            case "unprepare":
                let id = try deckID(c)
                var list = try preparedList(c, id)
                guard let n = words.first.flatMap({ Int($0) }), n >= 1, n <= list.count else {
                    throw CLIError(code: "argument", message: "poll unprepare takes the number of a prepared poll (1–\(list.count)).", exitCode: 1)
                }
                list.remove(at: n - 1)
                _ = try c.request(.pollPrepare(content: id, list))
            case "prepared":
                let list = try preparedList(c, try deckID(c))
                if list.isEmpty { print("no prepared polls") }
                for (i, d) in list.enumerated() {
                    let answers = d.kind == .text ? "(open)" : Self.lettered(d.answers)
                    print("\(i + 1). \(d.question) \(answers)\(d.correct.map { " ✓ \(Self.letter($0))" } ?? "")")
                }
            case "close":
                _ = try c.request(.pollClose(poll: 0))
            case "reveal":
                let picks = (pick ?? "").split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)).map { $0 - 1 } }
                _ = try c.request(.pollShow(PollShow(poll: 0, results: true, answer: answer, picks: picks)))
            case "answer":
                guard let p = try c.state().audience?.poll else { throw CLIError(code: "argument", message: "There's no poll.", exitCode: 1) }
                let given = words.joined(separator: " ")
                let a: PollAnswer
                if p.kind == .text {
                    a = .text(given)
                } else if let i = Self.index(of: given, in: p.answers) {
                    a = .choice(i)
                } else {
                    throw CLIError(code: "argument", message: "Answer with one of: \(Self.lettered(p.answers)).", exitCode: 1)
                }
                _ = try c.request(.pollAnswer(poll: p.id, a))
            case "results":
                guard let p = try c.state().audience?.poll else { print("no poll"); return }
                print("poll \(p.id): \(p.question) (\(p.open ? "open" : "closed"), \(p.total) answer\(p.total == 1 ? "" : "s"))")
                if let counts = p.counts {
                    for (i, a) in p.answers.enumerated() {
                        let mark = p.correct == i ? " ✓" : ""
                        print("  \(Self.letter(i)) \(a): \(i < counts.count ? counts[i] : 0)\(mark)")
                    }
                }
                for (i, t) in (p.texts ?? []).enumerated() { print("  \(i + 1). \(t)\(p.picks.contains(i) ? " [on the wall]" : "")") }
            default:
                throw CLIError(code: "argument", message: "poll takes ask, prepare, prepared, unprepare, close, results, reveal or answer, not \(action).", exitCode: 1)
            }
        }
    }

    static func letter(_ i: Int) -> String { String(UnicodeScalar(UInt8(65 + i))) }
    static func lettered(_ answers: [String]) -> String { answers.enumerated().map { "\(letter($0.offset)) (\($0.element))" }.joined(separator: ", ") }

    /// A letter (A–F) or an answer's text (any case).
    static func index(of given: String, in answers: [String]) -> Int? {
        let g = given.trimmingCharacters(in: .whitespaces)
        if g.count == 1, let a = g.uppercased().unicodeScalars.first, a.value >= 65, Int(a.value - 65) < answers.count, answers.count > 1,
            !answers.contains(where: { $0.caseInsensitiveCompare(g) == .orderedSame })
        {
            return Int(a.value - 65)
        }
        return answers.firstIndex { $0.caseInsensitiveCompare(g) == .orderedSame }
    }
}

struct AskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ask", abstract: "Ask the presenter a question (anonymous unless --named).")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "The question.") var text: [String]
    @Flag(help: "Show my name with the question.") var named = false
    func run() throws {
        try withConnection(connection) { c in _ = try c.request(.questionAsk(text: text.joined(separator: " "), named: named)) }
    }
}

struct QuestionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "questions", abstract: "List the audience's questions, most votes first; or vote | answered | wall | unwall | hide ID.")
    @OptionGroup var connection: ConnectionOptions
    @Argument(help: "vote, answered, wall, unwall or hide (none: list).") var action: String?
    @Argument(help: "The question's id.") var id: UInt32?
    func run() throws {
        try withConnection(connection) { c in
            if let action {
                guard let id else { throw CLIError(code: "argument", message: "questions \(action) needs a question id.", exitCode: 1) }
                let m: Message
                switch action {
                case "vote": m = .questionVote(id: id)
                case "answered": m = .questionMark(id: id, .answered)
                case "wall": m = .questionMark(id: id, .showOnWall)
                case "unwall": m = .questionMark(id: id, .offWall)
                case "hide": m = .questionMark(id: id, .hide)
                default: throw CLIError(code: "argument", message: "questions takes vote, answered, wall, unwall or hide, not \(action).", exitCode: 1)
                }
                _ = try c.request(m)
                return
            }
            let a = try c.state().audience
            for q in a?.questions ?? [] {
                var flags: [String] = []
                if q.answered { flags.append("answered") }
                if q.hidden { flags.append("hidden") }
                if a?.wallQuestion == q.id { flags.append("on the wall") }
                print("\(q.id). [\(q.votes)] \(q.text)\(q.name.map { " — \($0)" } ?? "")\(flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))")")
            }
        }
    }
}

struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lock", abstract: "Viewers follow the live page again (the default).")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try withConnection(connection) { c in _ = try c.request(.audienceSet(.lock)) } }
}

struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unlock", abstract: "Viewers may browse the deck on their own.")
    @OptionGroup var connection: ConnectionOptions
    func run() throws { try withConnection(connection) { c in _ = try c.request(.audienceSet(.unlock)) } }
}
