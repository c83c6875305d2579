// The wall's layout on the audience page (docs/protocol.md §9.7): when the wall shows
// several panes, a small map of them under the slide (the slide itself is the main pane's).
// viewer-view.js calls renderViewerWall(state) when the state changes.

let map = null;

export function renderViewerWall(s) {
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
    map.setAttribute('aria-label', "The wall's panes");
    note.insertAdjacentElement('afterend', map);
  }
  map.hidden = !layout || layout.kind === 'full';
  if (map.hidden) return;
  map.classList.toggle('pip', layout.kind === 'pip');
  map.replaceChildren(...layout.panes.map((p) => {
    const d = document.createElement('div');
    d.className = 'wall-pane';
    d.dataset.pane = String(p.index);
    Object.assign(d.style, { left: p.rect.x * 100 + '%', top: p.rect.y * 100 + '%', width: p.rect.width * 100 + '%', height: p.rect.height * 100 + '%' });
    const sc = p.screen;
    d.textContent = sc.content ? sc.content.name + (sc.page ? ' · ' + sc.page + '/' + sc.pageCount : '') : 'empty';
    return d;
  }));
}
