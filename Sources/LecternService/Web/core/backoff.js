// The reconnect back-off of the pages (the remote's session.js, the wall's wall.js): each
// failed step waits longer, up to 4 s, plus up to a quarter more, so that a room of phones
// doesn't come back in lock-step after the appliance restarts.

export const BACKOFF_MS = Object.freeze([500, 1000, 2000, 4000]);

// The wait before attempt `retry` (0: the first after the loss); `random` in [0, 1).
export function backoffDelay(retry, random = Math.random()) {
  const base = BACKOFF_MS[Math.min(Math.max(0, retry), BACKOFF_MS.length - 1)];
  return Math.round(base * (1 + random * 0.25));
}
