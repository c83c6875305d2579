// The pages' one DOM and notices module (the remote, the audience page, the wall): their
// elements by id, the WebSocket address, the toast and the banner. Everything that touches
// `document` or `location` for more than one page is here, once.

export const $ = (id) => document.getElementById(id);

// The appliance's WebSocket (/ws) on the page's own host, wss: when the page came over https:.
export function wsURL(loc = location) {
  return (loc.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + loc.host + '/ws';
}

let toastTimer = null;
// A sticky message on show (until dismissed): a passing notice doesn't replace it.
let stickyShown = false;

// The toast: in the page's "Messages" region, above the bottom bar, with a button to
// dismiss it (its text is the message alone: the button is named by its label).
// `sticky`: stays until dismissed or replaced by another error (a message the person must
// not miss: "The moderator ended your share." is not pushed away by the "You lost the floor."
// that comes with it; a passing notice meanwhile is not shown, the page shows its facts).
// `dismissible: false`: no button (the audience page, whose toast goes by itself);
// `ms`: how long it stays (by default 6 s for an error, 3.5 s for the others).
export function toast(text, kind = 'error', { sticky = false, dismissible = true, ms } = {}) {
  const t = $('toast');
  if (stickyShown && !sticky && kind !== 'error' && t.classList.contains('show')) return;
  stickyShown = sticky;
  t.textContent = text;
  if (dismissible) {
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'toast-close';
    close.setAttribute('aria-label', 'Dismiss the message');
    close.addEventListener('click', () => { clearTimeout(toastTimer); stickyShown = false; t.className = 'toast'; });
    t.append(close);
  }
  t.className = 'toast show toast-' + kind;
  clearTimeout(toastTimer);
  if (!sticky) toastTimer = setTimeout(() => { t.className = 'toast'; }, ms || (kind === 'error' ? 6000 : 3500));
}

// The banner (reconnecting, joining again) sticks under the top bar, in view whatever the
// scroll position: lectern.css places it at --bar-height, measured here.
export function banner(text) {
  const b = $('banner');
  b.textContent = text || '';
  b.hidden = !text;
  const bar = document.querySelector('header.bar');
  if (text && bar) document.documentElement.style.setProperty('--bar-height', bar.getBoundingClientRect().height + 'px');
}
