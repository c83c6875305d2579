// Over a viewer's slide (docs/protocol.md §24.2): the ink of the page (fetched with
// ink-fetch when the state says its strokes changed) and the presenter's pointer
// (viewer-pointer messages, at most 20 a second). Points are 0…65535 across the page's box
// (`state.ink.box`, shares of the output), which the page image shows as the wall does.
import { C } from '../core/protocol.js';
import { Writer } from '../core/wire.js';

const WIDTH = { '1,1': 0.004, '1,2': 0.009, '2,1': 0.022, '2,2': 0.036 };

export class ViewerOverlay {
  constructor(canvas) {
    this.canvas = canvas;
    this.strokes = [];
    this.pointer = null;   // { page, x, y, lifted }
    this.box = null;
    this.page = 0;
    this.inkKey = '';
  }

  /// A viewer-pointer message's body: u8 flags, u8 0, u16 x, u16 y, u32 page.
  pointerMessage(body) {
    const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
    if (body.byteLength < 10) return;
    this.pointer = { lifted: (v.getUint8(0) & 1) !== 0, x: v.getUint16(2), y: v.getUint16(4), page: v.getUint32(6) };
    this.draw();
  }

  /// The state changed: the box, the page shown, and whether its ink must be fetched again.
  async update(link, state, page, isLive) {
    const ink = state.ink || {};
    this.box = ink.box || null;
    this.page = isLive ? page : 0;
    const scr = state.screen;
    const entry = (ink.pages || []).find((p) => scr.content && p.content === scr.content.id && p.page === page);
    const key = scr.content ? scr.content.id + '/' + page + '/' + (entry ? entry.strokes : 0) + '/' + (ink.strokes || 0) : '';
    if (!isLive) { this.strokes = []; this.inkKey = ''; this.draw(); return; }
    if (key === this.inkKey) { this.draw(); return; }
    this.inkKey = key;
    if (!entry) { this.strokes = []; this.draw(); return; }
    try {
      const r = await link.request(C.inkFetch, new Writer().bytes(new Uint8Array(32)).u32(0).done());
      if (this.inkKey === key) { this.strokes = decodeStrokes(r.body); this.draw(); }
    } catch (e) { /* nothing to ink: no strokes */ }
  }

  draw() {
    const c = this.canvas, img = c.previousElementSibling;
    const w = img.clientWidth, h = img.clientHeight, dpr = window.devicePixelRatio || 1;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    c.dataset.pointer = '';
    c.dataset.strokes = String(this.page ? this.strokes.length : 0);
    if (!this.box || !this.page || !w) return;
    const bx = this.box.x * w, by = this.box.y * h, bw = this.box.width * w, bh = this.box.height * h;
    const at = (p) => [bx + (p[0] / 65535) * bw, by + (p[1] / 65535) * bh];
    g.lineCap = 'round';
    g.lineJoin = 'round';
    for (const s of this.strokes) {
      g.globalAlpha = s.tool === 2 ? 0.35 : 1;
      g.strokeStyle = g.fillStyle = `rgb(${s.r},${s.g},${s.b})`;
      g.lineWidth = Math.max(1, (WIDTH[s.tool + ',' + s.width] || 0.004) * bh);
      const pts = s.points.map(at);
      if (pts.length === 1) { g.beginPath(); g.arc(pts[0][0], pts[0][1], g.lineWidth / 2, 0, 2 * Math.PI); g.fill(); continue; }
      g.beginPath();
      pts.forEach((p, i) => (i ? g.lineTo(p[0], p[1]) : g.moveTo(p[0], p[1])));
      g.stroke();
    }
    g.globalAlpha = 1;
    const p = this.pointer;
    if (p && !p.lifted && p.page === this.page) {
      const [x, y] = at([p.x, p.y]);
      const r = Math.max(5, 0.014 * bh);
      g.fillStyle = 'rgba(255,255,255,0.9)';
      g.beginPath(); g.arc(x, y, r * 1.3, 0, 2 * Math.PI); g.fill();
      g.fillStyle = 'rgb(230,30,40)';
      g.beginPath(); g.arc(x, y, r, 0, 2 * Math.PI); g.fill();
      c.dataset.pointer = Math.round(x) + ',' + Math.round(y);
    }
  }
}

/// ink-page: u16 n, n × (u32 id, u8 author, u8 tool, u8 width, u8 r, g, b, u16 m, m × (u16 x, u16 y)).
function decodeStrokes(body) {
  const v = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let o = 0;
  const n = v.getUint16(o); o += 2;
  const out = [];
  for (let i = 0; i < n; i++) {
    const s = { tool: v.getUint8(o + 5), width: v.getUint8(o + 6), r: v.getUint8(o + 7), g: v.getUint8(o + 8), b: v.getUint8(o + 9), points: [] };
    o += 10;
    const m = v.getUint16(o); o += 2;
    for (let j = 0; j < m; j++) { s.points.push([v.getUint16(o), v.getUint16(o + 2)]); o += 4; }
    out.push(s);
  }
  return out;
}
