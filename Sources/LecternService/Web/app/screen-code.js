// The code on the wall (docs/config.md, screen_code): the idle screen's QR code opens
// this page with `#code=123456`. The fragment never reaches a server (nor its logs); the
// code goes into the passcode field, and the fragment leaves the address bar so it is not
// bookmarked or shared with the link. Scanning is joining: the person only adds a name.

export function takeCodeFromFragment(loc = window.location, doc = document, hist = window.history) {
  const m = /^#code=(\d{6})$/.exec(loc.hash || '');
  if (!m) return null;
  const field = doc.getElementById('passcode');
  if (field) field.value = m[1];
  if (hist && hist.replaceState) hist.replaceState(null, '', loc.pathname + loc.search);
  return m[1];
}

