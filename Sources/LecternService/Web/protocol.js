// The protocol's numbers (docs/protocol.md): command bytes, error codes, limits, and the
// small enumerations the page sends.
//
// COMMANDS and ERRORS are the web remote's copy of the Swift tables
// (Sources/LecternProtocol/Command.swift and Errors.swift). A Swift test
// (Tests/LecternWebTests/ProtocolTableDriftTests.swift) reads them from this file and fails
// on any difference, so keep them as they are: one row per line, literal numbers and names.

// [command byte, name, who sends it] (docs/protocol.md, "Command table").
export const COMMANDS = Object.freeze([
  [0x01, 'register',           'client'],
  [0x02, 'register-ok',        'server'],
  [0x03, 'register-failed',    'server'],
  [0x04, 'unregister',         'client'],
  [0x05, 'unregister-ok',      'server'],
  [0x06, 'floor-request',      'client'],
  [0x07, 'floor-ack',          'server'],
  [0x08, 'floor-granted',      'server'],
  [0x09, 'floor-withdrawn',    'server'],
  [0x0A, 'floor-release',      'client'],
  [0x0B, 'floor-moderate',     'client'],
  [0x0C, 'control',            'client'],
  [0x0D, 'control-ok',         'server'],
  [0x0E, 'control-failed',     'server'],
  [0x10, 'hello',              'server'],
  [0x11, 'ping',               'either'],
  [0x12, 'pong',               'either'],
  [0x13, 'ok',                 'server'],
  [0x14, 'error',              'server'],
  [0x15, 'state',              'server'],
  [0x16, 'state-request',      'client'],
  [0x20, 'clip-play',          'client'],
  [0x21, 'clip-play-ok',       'server'],
  [0x22, 'clip-pause',         'client'],
  [0x23, 'clip-pause-ok',      'server'],
  [0x24, 'clip-stop',          'client'],
  [0x25, 'clip-stop-ok',       'server'],
  [0x26, 'clip-seek',          'client'],
  [0x27, 'clip-seek-ok',       'server'],
  [0x28, 'clip-resume',        'client'],
  [0x29, 'clip-resume-ok',     'server'],
  [0x30, 'present',            'client'],
  [0x31, 'present-ok',         'server'],
  [0x32, 'clear',              'client'],
  [0x38, 'upload-begin',       'client'],
  [0x39, 'upload-ready',       'server'],
  [0x3A, 'upload-chunk',       'client'],
  [0x3B, 'upload-finish',      'client'],
  [0x3C, 'upload-stored',      'server'],
  [0x3D, 'upload-progress',    'server'],
  [0x50, 'screenshot-request', 'client'],
  [0x51, 'screenshot-data',    'server'],
  [0x52, 'page-preview',       'client'],
  [0x60, 'notes-request',      'client'],
  [0x61, 'notes',              'server'],
  [0x62, 'notes-edit',         'client'],
  [0x63, 'notes-file',         'client'],
  [0x64, 'timer',              'client'],
  [0x65, 'goto-label',         'client'],
  [0x66, 'notes-layout',       'client'],
  [0x80, 'poll-ask',           'client'],
  [0x81, 'poll-answer',        'client'],
  [0x82, 'poll-close',         'client'],
  [0x83, 'poll-show',          'client'],
  [0x84, 'question-ask',       'client'],
  [0x85, 'question-vote',      'client'],
  [0x86, 'question-mark',      'client'],
  [0x87, 'audience-set',       'client'],
]);

// [error code, name] (docs/protocol.md, "Error codes").
export const ERRORS = Object.freeze([
  [0x0001, 'malformedFrame'],
  [0x0002, 'frameTooLarge'],
  [0x0003, 'malformedBody'],
  [0x0004, 'unknownCommand'],
  [0x0005, 'wrongDeviceID'],
  [0x0006, 'notRegistered'],
  [0x0007, 'alreadyRegistered'],
  [0x0008, 'unsupportedVersion'],
  [0x0009, 'timedOut'],
  [0x0101, 'wrongPasscode'],
  [0x0102, 'tooManyAttempts'],
  [0x0103, 'roomFull'],
  [0x0104, 'roleUnavailable'],
  [0x0105, 'invalidName'],
  [0x0106, 'kicked'],
  [0x0107, 'replaced'],
  [0x0201, 'noFloor'],
  [0x0202, 'floorTaken'],
  [0x0203, 'moderatorOnly'],
  [0x0204, 'doNotDisturb'],
  [0x0205, 'noSuchDevice'],
  [0x0206, 'notQueued'],
  [0x0207, 'floorFree'],
  [0x0208, 'notHandedOver'],
  [0x0209, 'handedOver'],
  [0x020A, 'invalidTarget'],
  [0x0301, 'unknownContent'],
  [0x0302, 'notYourContent'],
  [0x0303, 'pageOutOfRange'],
  [0x0304, 'nothingOnScreen'],
  [0x0305, 'unknownSignal'],
  [0x0306, 'wrongKind'],
  [0x0307, 'unreadableContent'],
  [0x0401, 'fileTooLarge'],
  [0x0402, 'quotaFull'],
  [0x0403, 'hashMismatch'],
  [0x0404, 'noUpload'],
  [0x0405, 'wrongOffset'],
  [0x0406, 'unsupportedFileType'],
  [0x0407, 'uploadIncomplete'],
  [0x0408, 'beyondDeclaredSize'],
  [0x0409, 'invalidFileName'],
  [0x0501, 'clipsNotSupported'],
  [0x0502, 'noClip'],
  [0x0503, 'seekOutOfRange'],
  [0x0601, 'internalError'],
  [0x0602, 'screenshotUnavailable'],
  [0x0603, 'shuttingDown'],
  [0x0604, 'storageFailed'],
  [0x0605, 'tooManyConnections'],
  [0x0606, 'busy'],
  [0x0701, 'notesPrivate'],
  [0x0702, 'badNotesFile'],
  [0x0703, 'unknownLabel'],
  [0x0704, 'notesTooLarge'],
  [0x0705, 'badTimer'],
  [0x0901, 'viewerNotAllowed'],
  [0x0902, 'audienceFull'],
  [0x0903, 'noSuchPoll'],
  [0x0904, 'pollClosed'],
  [0x0905, 'badPoll'],
  [0x0906, 'badAnswer'],
  [0x0907, 'noSuchQuestion'],
  [0x0908, 'tooLong'],
  [0x0909, 'tooMany'],
  [0x090A, 'slowDown'],
  [0x090B, 'audienceOnly'],
]);

// The command bytes by the names the code uses: C.registerOK is 'register-ok'.
export const C = Object.freeze(Object.fromEntries(COMMANDS.map(([byte, name]) => [codeName(name), byte])));
// The error codes by name: ERR.wrongPasscode.
export const ERR = Object.freeze(Object.fromEntries(ERRORS.map(([code, name]) => [name, code])));

function codeName(name) {
  return name.split('-').map((w, i) => i === 0 ? w : w === 'ok' ? 'OK' : w[0].toUpperCase() + w.slice(1)).join('');
}

// The replies that carry an error body (§6.1).
export const FAILURES = new Set([C.registerFailed, C.controlFailed, C.error]);
export const MAX_FRAME = 0x110000;          // 1 MiB + 64 KiB, header included
export const MAX_CHUNK = 1 << 20;           // data in one upload-chunk
export const PROTOCOL_VERSION = 1;
export const ROLE = { presenter: 1, moderator: 2 };
export const SIGNAL = { next: 0x01, prev: 0x02, goto: 0x03, blank: 0xF0, unblank: 0xF1, handOver: 0xFD, takeBack: 0xFE, giveBack: 0xFF };
export const MODERATE = { grant: 1, withdraw: 2, reject: 3, kick: 4, dndOn: 5, dndOff: 6 };
