// Errors in words for people, and buttons whose failures are shown (the toast and the
// banner themselves are dom.js's).

import { toast } from './dom.js';
import { ServerError } from '../core/wire.js';
import { ConnectionLost } from '../core/link.js';

export function describe(e) {
  if (e instanceof ServerError || e instanceof ConnectionLost) return e.message;
  return 'Something went wrong in this page: ' + (e && e.message ? e.message : e);
}

// Runs a request from a button; any failure is shown in words.
export async function act(fn) {
  try { return await fn(); } catch (e) { toast(describe(e)); return undefined; }
}
