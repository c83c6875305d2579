// A shared capture's pacing (app/share.js): at most the frame rate on average, by a
// generic cell rate algorithm (`due` is when the next picture is due at the rate). A
// picture may come up to 2.2 frames early, a burst of three as MAX_IN_FLIGHT allows: a
// capture's timestamps bunch under load (three pictures a few ms apart, then a gap), and
// skipping them lost distinct pictures on a quiet link, while a faster capture is still
// thinned to the rate. The rate is taken 2 % over what was asked: a capture's clock
// that runs a little fast (a canvas's timer rounded to whole milliseconds draws 30.3 a
// second) would otherwise lose a picture every few seconds once the burst is spent.
// Returns [encode?, the next due time].
export const EARLY_FRAMES = 2.2;
export const RATE_SLACK = 1.02;
export function paceCapture(dueUs, t, frameRate) {
  const interval = 1_000_000 / (frameRate * RATE_SLACK);
  if (t < dueUs - interval * EARLY_FRAMES) return [false, dueUs];
  return [true, Math.max(dueUs, t) + interval];
}
