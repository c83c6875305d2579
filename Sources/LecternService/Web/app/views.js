// All of the page's cards, drawn from the state.

import { renderScreen } from './screen-view.js';
import { renderFloor } from './floor-view.js';
import { renderFiles } from './files-view.js';
import { renderModerator } from './moderator-view.js';
import { renderClip } from './clip-view.js';
import { renderSound } from './sound-control.js';
import { renderRecord } from './record-view.js';
import { renderConsole } from './console-view.js';
import { renderModeratorNotes } from './moderator-notes.js';
import { renderOutputAlert } from './output-alert.js';
import { renderAudience } from './audience-panel.js';
import { renderLayout } from './presenter-layout.js';
import { renderWall } from './layout-view.js';
import { renderShare } from './share-view.js';
import { renderConversions } from './conversion-view.js';

export function renderAll() {
  renderScreen();
  renderConversions();
  renderFloor();
  renderFiles();
  renderModerator();
  renderClip();
  renderSound();
  renderRecord();
  renderModeratorNotes();
  renderConsole();
  renderOutputAlert();
  renderAudience();
  renderLayout();
  renderWall();
  renderShare();
}
