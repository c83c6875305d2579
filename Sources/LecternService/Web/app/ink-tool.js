// Pointing and drawing on the live picture (docs/protocol.md §22): a tool bar under the
// picture — swipe (turns pages, as before), pointer, pen, highlighter — with undo and clear.
// A touch or the mouse on the picture maps to page coordinates through the state's
// `ink.box` (where the page sits on the output). Pointer positions are sent at most once a
// frame, only when they moved, and never waited for; strokes are streamed (stroke-begin,
// stroke-points at most once a frame, stroke-end) and drawn here at once, then the live
// picture is fetched again.

import { $, toast } from './dom.js';
import { C, INK_LIMITS } from '../core/protocol.js';
import { app, canDrive, isModerator, me } from './state.js';
import { act } from './notices.js';
import { refreshPreview } from './preview.js';
import { Writer } from '../core/wire.js';

const { pointsPerMessage: MAX_PER_MESSAGE, pointsPerStroke: MAX_PER_STROKE } = INK_LIMITS;
const ink = { tool: 'swipe', gesture: null, queued: null, frame: 0 };

function canPoint() { return canDrive() || isModerator(); }
function canDraw() {
  const s = app.state;
  if (!s || !s.ink) return false;
  return canPoint() || s.ink.everyone || s.ink.allowed.includes(me());
}

// The picture's size in pixels. While a fresh picture loads (the live picture is fetched
// again whenever anyone's ink or the page changes, and the browser has no size for it until
// it has decoded it) the last one's: a finger going down or moving meanwhile still lands, and
// a stroke isn't lost because someone else drew at the same moment.
let pictureSize = null;
function sizeOf(img) {
  if (img.naturalWidth && img.naturalHeight) pictureSize = { width: img.naturalWidth, height: img.naturalHeight };
  return pictureSize;
}

/// Page coordinates (0…1 each) of a pointer event on the picture, or null off the page.
export function pageCoordinates(clientX, clientY) {
  const img = $('preview-img');
  const box = app.state && app.state.ink && app.state.ink.box;
  const size = sizeOf(img);
  if (!box || img.hidden || !size) return null;
  const r = img.getBoundingClientRect();
  const scale = Math.min(r.width / size.width, r.height / size.height);   // object-fit: contain
  const w = size.width * scale, h = size.height * scale;
  const fx = (clientX - r.left - (r.width - w) / 2) / w, fy = (clientY - r.top - (r.height - h) / 2) / h;
  const x = (fx - box.x) / box.width, y = (fy - box.y) / box.height;
  if (!(x >= -0.02 && x <= 1.02 && y >= -0.02 && y <= 1.02)) return null;
  return { x: Math.min(1, Math.max(0, x)), y: Math.min(1, Math.max(0, y)) };
}

const q = (v) => Math.round(v * 65535);
function points(list) {
  const w = new Writer().u16(list.length);
  for (const p of list) w.u16(q(p.x)).u16(q(p.y));
  return w.done();
}

function sendPointer(p, lifted) {
  app.link.send(C.pointer, new Writer().u8(lifted ? 1 : 0).u8(0).u16(q(p.x)).u16(q(p.y)).done());
}

// One flush a frame: the newest pointer position, or the stroke's new points.
function schedule() {
  if (ink.frame) return;
  ink.frame = requestAnimationFrame(() => { ink.frame = 0; flush(); });
}

function flush() {
  const g = ink.gesture;
  if (!g || !app.link || !app.link.isOpen) return;
  if (g.tool === 'pointer') {
    if (ink.queued && (!g.sent || ink.queued.x !== g.sent.x || ink.queued.y !== g.sent.y)) {
      sendPointer(ink.queued, false);
      g.sent = ink.queued;
    }
    ink.queued = null;
    return;
  }
  while (g.pending.length) {
    const room = MAX_PER_STROKE - g.count;
    const part = g.pending.splice(0, Math.min(MAX_PER_MESSAGE, room));
    g.count += part.length;
    app.link.send(C.strokePoints, points(part));
    if (g.count >= MAX_PER_STROKE) {   // a long stroke goes on as a new one
      app.link.request(C.strokeEnd, points([])).catch(() => {});
      app.link.send(C.strokeBegin, new Writer().u8(g.tool === 'highlighter' ? 2 : 1).u8(g.width).u8(0).u8(0).bytes(points([])).done());
      g.count = 0;
    }
  }
}

function drawLocal(g) {
  const c = $('ink-canvas');
  const img = $('preview-img');
  const box = app.state.ink.box;
  const r = c.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  if (c.width !== Math.round(r.width * dpr)) { c.width = Math.round(r.width * dpr); c.height = Math.round(r.height * dpr); }
  const size = sizeOf(img);
  if (!size) return;
  const ir = img.getBoundingClientRect();
  const scale = Math.min(ir.width / size.width, ir.height / size.height);
  const w = size.width * scale, h = size.height * scale;
  const ox = ir.left - r.left + (ir.width - w) / 2 + box.x * w, oy = ir.top - r.top + (ir.height - h) / 2 + box.y * h;
  const pw = box.width * w, ph = box.height * h;
  const ctx = c.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.lineCap = 'round'; ctx.lineJoin = 'round';
  ctx.strokeStyle = g.tool === 'highlighter' ? 'rgba(240, 228, 66, .5)' : '#0072b2';
  ctx.lineWidth = Math.max(2, ph * (g.tool === 'highlighter' ? 0.03 : 0.006));
  ctx.beginPath();
  g.all.forEach((p, i) => { const x = ox + p.x * pw, y = oy + p.y * ph; if (i) ctx.lineTo(x, y); else ctx.moveTo(x, y); });
  ctx.stroke();
}

function clearLocal() {
  const c = $('ink-canvas');
  c.getContext('2d').clearRect(0, 0, c.width, c.height);
}

function down(e) {
  if (ink.tool === 'swipe' || ink.gesture) return;
  const p = pageCoordinates(e.clientX, e.clientY);
  if (!p) return;
  if (ink.tool === 'pointer' ? !canPoint() : !canDraw()) {
    toast(ink.tool === 'pointer' ? 'Only the presenter with the floor or the moderator can point.' : 'Ask the presenter or the moderator to let you draw.');
    return;
  }
  e.preventDefault();
  $('preview').setPointerCapture(e.pointerId);
  const g = { id: e.pointerId, tool: ink.tool, width: ink.tool === 'highlighter' ? 1 : 1, pending: [], count: 1, all: [p], sent: null };
  ink.gesture = g;
  if (g.tool === 'pointer') { ink.queued = p; schedule(); return; }
  app.link.send(C.strokeBegin, new Writer().u8(g.tool === 'highlighter' ? 2 : 1).u8(g.width).u8(0).u8(0).bytes(points([p])).done());
  drawLocal(g);
}

function move(e) {
  const g = ink.gesture;
  if (!g || e.pointerId !== g.id) return;
  e.preventDefault();
  const p = pageCoordinates(e.clientX, e.clientY);
  if (!p) return;
  if (g.tool === 'pointer') { ink.queued = p; schedule(); return; }
  const last = g.all[g.all.length - 1];
  if (Math.abs(last.x - p.x) + Math.abs(last.y - p.y) < 0.002) return;   // not a new sample
  g.all.push(p); g.pending.push(p);
  drawLocal(g);
  schedule();
}

function up(e) {
  const g = ink.gesture;
  if (!g || e.pointerId !== g.id) return;
  e.preventDefault();
  flush();
  ink.gesture = null;
  if (g.tool === 'pointer') {
    sendPointer(g.sent || g.all[0], true);
    return;
  }
  app.link.request(C.strokeEnd, points([]))
    .then(() => refreshPreview())
    .catch((err) => toast(err.message || String(err)))
    .finally(() => setTimeout(clearLocal, 400));
}

function setTool(t) {
  ink.tool = t;
  for (const b of document.querySelectorAll('#ink-bar [data-ink-tool]')) b.setAttribute('aria-pressed', String(b.dataset.inkTool === t));
  const preview = $('preview');
  preview.classList.toggle('inking', t !== 'swipe');
  // Styles through the CSSOM (the page's policy allows no inline style sheets).
  preview.style.touchAction = t === 'swipe' ? '' : 'none';
  preview.style.cursor = t === 'swipe' ? '' : 'crosshair';
}

export function setupInk() {
  const preview = $('preview');
  const canvas = document.createElement('canvas');
  canvas.id = 'ink-canvas'; canvas.className = 'ink-canvas'; canvas.setAttribute('aria-hidden', 'true');
  Object.assign(canvas.style, { position: 'absolute', left: '0', top: '0', width: '100%', height: '100%', pointerEvents: 'none' });
  preview.appendChild(canvas);
  const bar = document.createElement('div');
  bar.id = 'ink-bar'; bar.className = 'ink-bar'; bar.setAttribute('role', 'toolbar'); bar.setAttribute('aria-label', 'Point and draw');
  Object.assign(bar.style, { display: 'flex', flexWrap: 'wrap', gap: '.4rem', margin: '.6rem 0 0' });
  bar.innerHTML = '<button type="button" data-ink-tool="swipe" aria-pressed="true">Swipe</button>'
    + '<button type="button" data-ink-tool="pointer" aria-pressed="false">Pointer</button>'
    + '<button type="button" data-ink-tool="pen" aria-pressed="false">Pen</button>'
    + '<button type="button" data-ink-tool="highlighter" aria-pressed="false">Highlighter</button>'
    + '<button type="button" id="ink-undo">Undo</button>'
    + '<button type="button" id="ink-clear">Clear ink</button>'
    + '<button type="button" id="ink-whiteboard">New whiteboard</button>';
  preview.insertAdjacentElement('afterend', bar);
  bar.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    if (b.dataset.inkTool) setTool(b.dataset.inkTool);
    else if (b.id === 'ink-undo') act(() => app.link.request(C.inkUndo, new Uint8Array(0))).then(refreshPreview);
    else if (b.id === 'ink-clear') act(() => app.link.request(C.inkClear, new Uint8Array([1]))).then(refreshPreview);
    else if (b.id === 'ink-whiteboard') act(() => app.link.request(C.whiteboardNew, new Uint8Array([0])));
  });
  // While a tool is on, the picture's touches draw: the page-turning swipe doesn't see them.
  const stopSwipe = (e) => { if (ink.tool !== 'swipe') e.stopPropagation(); };
  preview.parentElement.addEventListener('touchstart', stopSwipe, { capture: true });
  preview.parentElement.addEventListener('touchend', stopSwipe, { capture: true });
  const img = $('preview-img');
  img.addEventListener('load', () => sizeOf(img));
  preview.addEventListener('pointerdown', down);
  preview.addEventListener('pointermove', move);
  preview.addEventListener('pointerup', up);
  preview.addEventListener('pointercancel', up);
}

export const inkTool = { setTool, pageCoordinates, state: ink };
