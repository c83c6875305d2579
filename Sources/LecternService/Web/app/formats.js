// What the appliance shows (docs/protocol.md §30.10), as file pickers know it: one row per
// kind, [kind, what, extensions, MIME types]. A copy of UploadFormats.rows (LecternModel),
// checked by Tests/LecternWebTests/UploadPickerTests.swift. What a file is, the appliance
// decides by its content; the extensions let a phone's picker offer it (a picker given only
// MIME types greys out files it can't type).

export const FORMATS = Object.freeze([
  ['pdf', 'PDF slides', ['.pdf'], ['application/pdf']],
  ['office', 'PowerPoint, Keynote, Word, Excel and OpenDocument files',
    ['.pptx', '.ppt', '.odp', '.key', '.docx', '.doc', '.odt', '.rtf', '.xlsx', '.xls', '.ods'],
    ['application/vnd.openxmlformats-officedocument.presentationml.presentation', 'application/vnd.ms-powerpoint',
      'application/vnd.oasis.opendocument.presentation', 'application/vnd.apple.keynote',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'application/msword',
      'application/vnd.oasis.opendocument.text', 'application/rtf', 'text/rtf',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/vnd.ms-excel',
      'application/vnd.oasis.opendocument.spreadsheet']],
  ['image', 'JPEG photos', ['.jpg', '.jpeg', '.jpe', '.jfif'], ['image/jpeg']],
  ['image', 'PNG images', ['.png'], ['image/png']],
  ['image', 'WebP images', ['.webp'], ['image/webp']],
  ['image', 'GIF images', ['.gif'], ['image/gif']],
  ['image', 'HEIC/HEIF photos', ['.heic', '.heif', '.hif', '.avif'], ['image/heic', 'image/heif', 'image/avif']],
  ['clip', 'video clips', ['.mp4', '.m4v', '.mov', '.mkv', '.webm', '.ts', '.m2ts', '.mts', '.h264', '.264', '.avi'], ['video/*']],
  ['notes', 'speaker notes (pdfpc)', ['.pdfpc'], []],
]);

// The picker's accept attribute: every extension, then every MIME type.
export function acceptList() {
  return FORMATS.flatMap((r) => r[2]).concat(FORMATS.flatMap((r) => r[3])).join(',');
}

// Whether a chosen file looks like a photo or image (its name or type): several of them
// chosen together become one deck. A guess the appliance checks (notAnImage).
export function looksLikeImage(file) {
  const name = (file.name || '').toLowerCase();
  return FORMATS.some((r) => r[0] === 'image' && (r[2].some((e) => name.endsWith(e)) || r[3].includes(file.type)));
}
