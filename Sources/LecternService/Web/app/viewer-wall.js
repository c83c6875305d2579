// The wall's layout on the audience page (docs/protocol.md §9.7, §24.8): when the wall
// shows several panes, a small map of them under the slide. The slide is the main pane's
// unless the viewer taps another pane in the map: then that pane's page is followed (its
// image, its page number) until the viewer taps the main pane again or the pane goes.
// viewer-view.js calls renderViewerWall(state, onPick) when the state changes and asks
// followedPane(state) which pane to show.

let map = null;
/// The pane the viewer picked (its index), or null: the main pane.
let picked = null;

/// The pane the viewer follows, if it picked one other than the main pane and the wall
/// still has it; null: the main pane (the state's own `screen` and `audience.pageImage`).
export function followedPane(s) {
  const layout = s && s.layout;
  if (!layout || layout.kind === 'full' || picked === null) return null;
  const p = layout.panes.find((x) => x.index === picked);
  return p && !p.main ? p : null;
}

export function renderViewerWall(s, onPick) {
  const layout = s && s.layout;
  if (!map) {
    const note = document.getElementById('slide-note');
    if (!note) return;
    const css = document.createElement('link');
    css.rel = 'stylesheet';
    css.href = '/layout-view.css';
    document.head.append(css);
    map = document.createElement('div');
    map.id = 'viewer-wall';
    map.className = 'wall-map';
    map.setAttribute('role', 'group');
    map.setAttribute('aria-label', "The wall's panes: tap one to follow it");
    note.insertAdjacentElement('afterend', map);
  }
  map.hidden = !layout || layout.kind === 'full';
  if (map.hidden) return;
  const followed = followedPane(s);
  map.classList.toggle('pip', layout.kind === 'pip');
  map.replaceChildren(...layout.panes.map((p) => {
    const d = document.createElement('button');
    d.type = 'button';
    d.className = 'wall-pane';
    d.dataset.pane = String(p.index);
    Object.assign(d.style, { left: p.rect.x * 100 + '%', top: p.rect.y * 100 + '%', width: p.rect.width * 100 + '%', height: p.rect.height * 100 + '%' });
    const sc = p.screen;
    d.textContent = sc.content ? sc.content.name + (sc.page ? ' · ' + sc.page + '/' + sc.pageCount : '') : 'empty';
    const following = followed ? followed.index === p.index : p.main;
    d.setAttribute('aria-pressed', String(following));
    d.classList.toggle('mine', following);
    d.onclick = () => {
      picked = p.main ? null : p.index;
      if (onPick) onPick();
    };
    return d;
  }));
}
