import Foundation
import LecternModel

/// Loads `lectern.toml`: reads the file (UTF-8, who may read it) and checks it with
/// `parse` (ConfigSchema.swift); every problem comes back with its line, all at once, so an
/// admin fixes the file in one go (`lecternd --check-config`). docs/config.md documents
/// every key; keep the two in step (LecternApplianceTests checks the shipped
/// board/lectern.toml against this).
public enum ConfigFile {
    public struct Result: Sendable {
        public var config: Config
        /// What makes the file unusable: the service refuses to start (or to reload) on any.
        public var problems: [ConfigProblem]
        /// Worth telling the admin, but the file is used.
        public var warnings: [ConfigProblem]
        /// The drop-in files merged over the main file, in the order they were applied.
        public var dropIns: [String] = []
        public var isValid: Bool { problems.isEmpty }
        public init(config: Config, problems: [ConfigProblem], warnings: [ConfigProblem], dropIns: [String] = []) {
            self.config = config; self.problems = problems; self.warnings = warnings; self.dropIns = dropIns
        }
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let path: String
        public let problems: [ConfigProblem]
        /// Warnings found on the way (file permissions, …), for the log.
        public var warnings: [ConfigProblem] = []
        /// The drop-ins read with it: then every problem names its file.
        public var dropIns: [String] = []
        public init(path: String, problems: [ConfigProblem], warnings: [ConfigProblem] = [], dropIns: [String] = []) {
            self.path = path; self.problems = problems; self.warnings = warnings; self.dropIns = dropIns
        }
        public var description: String {
            let what = dropIns.isEmpty ? path : "the config (\(path) and \(dropIns.count) drop-in\(dropIns.count == 1 ? "" : "s"))"
            return "\(what) is not valid:\n" + problems.map { "  \($0)" }.joined(separator: "\n")
        }
    }

    /// The exit status of `lecternd` when the config file is not valid (sysexits.h
    /// EX_CONFIG). systemd/lectern.service lists it in RestartPreventExitStatus=, so a bad
    /// file stops the service with its message instead of a restart loop.
    public static let invalidExitStatus: Int32 = 78

    /// Reads and checks the file at `path` and its drop-ins (ConfigDropIns.swift); throws
    /// `Invalid` listing every problem, each with its file when there are drop-ins.
    public static func load(path: String) throws -> Result {
        let dropIns: [String]
        do { dropIns = try ConfigDropIns.files(besideMain: path) } catch {
            let e = error as? ConfigDropIns.Unusable
            throw Invalid(path: path, problems: [ConfigProblem(line: nil, e?.message ?? "\(error)", file: e?.path)])
        }
        var sources: [Source] = []
        var problems: [ConfigProblem] = []
        let mainOwner = ConfigDropIns.owner(of: path)
        for file in [path] + dropIns {
            let label: String? = dropIns.isEmpty ? nil : file
            if file != path, let why = ConfigDropIns.refusal(of: file, mainOwner: mainOwner) {
                problems.append(ConfigProblem(line: nil, why, file: label))
                continue
            }
            do {
                sources.append(Source(path: label, text: try read(file, isMain: file == path)))
            } catch {
                let problem = (error as? Invalid)?.problems ?? [ConfigProblem(line: nil, "\(error)")]
                problems += problem.map { p in
                    var p = p; p.file = label; return p
                }
            }
        }
        guard problems.isEmpty else { throw Invalid(path: path, problems: problems, dropIns: dropIns) }
        var result = parse(sources: sources)
        result.warnings.insert(contentsOf: ([path] + dropIns).flatMap { permissionWarnings(path: $0) }, at: 0)
        guard result.isValid else { throw Invalid(path: path, problems: result.problems, warnings: result.warnings, dropIns: dropIns) }
        result.dropIns = dropIns
        return result
    }

    /// The text of one config file, or `Invalid` with why it can't be read.
    static func read(_ file: String, isMain: Bool) throws -> String {
        var st = stat()
        if stat(file, &st) == 0, st.st_mode & S_IFMT != S_IFREG {
            throw Invalid(path: file, problems: [ConfigProblem(line: nil, "is not a regular file")])
        }
        if !isMain, st.st_size > ConfigDropIns.maxFileBytes {
            throw Invalid(path: file, problems: [ConfigProblem(line: nil, "is \(st.st_size) bytes, more than a drop-in may be (\(ConfigDropIns.maxFileBytes))")])
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            let why =
                FileManager.default.fileExists(atPath: file)
                ? "can't be read (permissions? it should be owned by root, group lectern, mode 640)" : "does not exist"
            throw Invalid(path: file, problems: [ConfigProblem(line: nil, "the config file \(why)")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Invalid(path: file, problems: [ConfigProblem(line: nil, "the file is not UTF-8 text")])
        }
        return text
    }

    /// Warnings about who may read or change the file at `path` (it holds the passcodes).
    public static func permissionWarnings(path: String) -> [ConfigProblem] {
        var st = stat()
        guard stat(path, &st) == 0 else { return [] }
        var warnings: [ConfigProblem] = []
        if st.st_mode & 0o002 != 0 {
            warnings.append(
                ConfigProblem(line: nil, "\(path) is writable by every user: anyone on this machine can change the passcodes: chmod 640 it (owner root, group lectern)"))
        } else if st.st_mode & 0o004 != 0 {
            warnings.append(ConfigProblem(line: nil, "\(path) is readable by every user and holds the passcodes: chmod 640 it (owner root, group lectern)"))
        }
        return warnings
    }
}
