// The table page: upload photos, draw the tiles and the hint on the photo, fix tiles, keep score.
// Talks only to the JSON API (/api/...). No framework, no build step.
(function () {
  'use strict';
  const boot = JSON.parse(document.getElementById('boot').textContent);
  let table = boot.table, photo = boot.photo, fromPhoto = false;
  const code = boot.code, maxPip = boot.max_pip, MAX_SIDE = 1600;
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  // the game's record of the catalog (engine.GAMES): hand, pass penalty, scoring, ...
  const GAME = boot.game;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function say(text) { const m = $('message'); m.textContent = text || ''; m.hidden = !text; m.classList.remove('pinned'); }
  function busy(on) { const b = $('busy'); if (b) b.hidden = !on; }

  // ---- which seat this phone holds ----------------------------------------------------------
  // The server keeps the seat: taking one sets this phone's HttpOnly seat cookie, so only this
  // phone reads and sets the seat's hand, on the http and the https address alike. "Just
  // watching" is remembered on the phone only.
  const watchKey = 'watch:' + table.id;
  function watching() { try { return localStorage.getItem(watchKey) === '1'; } catch (e) { return false; } }
  function storeWatch(on) { try { if (on) localStorage.setItem(watchKey, '1'); else localStorage.removeItem(watchKey); } catch (e) { /* private mode */ } }
  let seat = null;  // player id (string) this phone holds, or 'watch' or null (not chosen)
  if (code) {
    if (table.players.length === 1) seat = String(table.players[0].id);
    else if (boot.seat !== null && boot.seat !== undefined) seat = String(boot.seat);
    else if (watching()) seat = 'watch';
  }
  const seated = () => !!code && seat !== null && seat !== 'watch';

  // A fresh idempotency key (works on plain http too, where crypto.randomUUID is missing).
  function newKey() {
    const b = new Uint8Array(16); crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  }
  // key: sent as Idempotency-Key; such a request is tried once more when the answer is lost,
  // and the server answers the retry with the first result (nothing is stored twice).
  async function api(method, url, body, key) {
    const opts = { method, headers: { 'Accept': 'application/json' } };
    if (code) opts.headers['X-Table-Code'] = code;  // the seat travels in its cookie
    if (key) opts.headers['Idempotency-Key'] = key;
    if (body instanceof FormData) opts.body = body;
    else if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers['Content-Type'] = 'application/json'; }
    let res;
    try { res = await fetch(url, opts); } catch (e) {
      if (!key) throw new Error('The server cannot be reached: ' + e.message);
      await new Promise((r) => setTimeout(r, 1000));
      try { res = await fetch(url, opts); } catch (e2) { throw new Error('The server cannot be reached: ' + e2.message); }
    }
    let data = null;
    try { data = await res.json(); } catch (e) { /* not JSON */ }
    if (!res.ok) throw new Error((data && data.error && data.error.message) || ('HTTP ' + res.status));
    return data;
  }

  function renderSeat() {
    // the hand box (the Big Clock's drawn tile too) for a phone in a seat; a table of one
    // player (a solitaire) has no seat card: its one seat is every phone's with the code
    const handCard = $('hand-form');
    if (handCard) handCard.hidden = !seated();
    if ($('hand-card')) $('hand-card').hidden = !seated();
    const card = $('seat-card'); if (!card) return;
    const choose = $('seat-choose'), now = $('seat-now');
    if (seat === null) {
      choose.hidden = false; now.hidden = true;
      const box = $('seat-buttons'); box.innerHTML = '';
      for (const p of table.players) {
        if (p.held && !table.demo) {  // another phone sits there: it may only be freed (a lost phone)
          const wrap = el('span', { class: 'seat-held' });
          wrap.append(el('button', { type: 'button', class: 'seat', 'data-player': p.id, disabled: '' }, `${p.name} (on another phone)`));
          const free = el('button', { type: 'button', class: 'link seat-free', 'data-player': p.id }, 'free');
          free.addEventListener('click', () => freeSeat(p));
          wrap.append(free); box.append(wrap);
          continue;
        }
        const b = el('button', { type: 'button', class: 'seat', 'data-player': p.id }, p.name);
        b.addEventListener('click', () => pickSeat(String(p.id)));
        box.append(b);
      }
      const w = el('button', { type: 'button', class: 'seat', id: 'seat-watch' }, 'Just watching');
      w.addEventListener('click', () => pickSeat('watch'));
      box.append(w);
    } else {
      choose.hidden = true; now.hidden = false;
      $('seat-name').textContent = seat === 'watch' ? 'watching (no hand)' : 'playing as ' + playerName(seat);
      $('seat-change').textContent = seat === 'watch' ? 'choose a seat' : 'leave seat';
    }
  }
  async function refreshPhoto() {  // the latest photo as this phone may see it (its hand or none)
    if (!photo) return;
    photo = await api('GET', `/api/tables/${table.id}/photos/${photo.id}`); renderPhoto();
  }
  async function pickSeat(v) {
    try {
      if (v === 'watch') {
        seat = 'watch'; storeWatch(true);
      } else {
        const got = await api('POST', `/api/tables/${table.id}/seats/${v}`);
        seat = String(got.player_id); storeWatch(false); table = got.table;
        if ($('hand-input')) { $('hand-input').value = (got.hand || []).join(' '); handTyped = false; }
      }
      say(''); renderTable();
      if (seated()) await loadMine(); else await refreshPhoto();
    } catch (e) { say(e.message); if (seat !== 'watch') seat = null; renderSeat(); }
  }
  async function leaveSeat() {
    try {
      if (seated()) table = (await api('DELETE', `/api/tables/${table.id}/seats/${seat}`)).table;
      seat = null; storeWatch(false);
      if ($('hand-input')) { $('hand-input').value = ''; handTyped = false; }
      say(''); renderTable(); await refreshPhoto();
    } catch (e) { say(e.message); }
  }
  async function freeSeat(p) {
    if (!window.confirm(`Free ${p.name}'s seat? Do this only when ${p.name}'s phone is lost: that phone loses the seat and ${p.name}'s hand is cleared.`)) return;
    try { table = (await api('DELETE', `/api/tables/${table.id}/seats/${p.id}`)).table; say(''); renderTable(); }
    catch (e) { say(e.message); }
  }
  // another phone freed this phone's seat (the change feed brings the table without it)
  function seatStillHeld() {
    if (!seated() || table.players.length === 1) return;
    const me = table.players.find((q) => String(q.id) === seat);
    if (me && me.held === false) {
      seat = null;
      if ($('hand-input')) { $('hand-input').value = ''; handTyped = false; }
      say('Your seat was freed from another phone: choose who you are again.');
      refreshPhoto().catch(() => {});
    }
  }
  let handTyped = false;
  if ($('hand-input')) $('hand-input').addEventListener('input', () => { handTyped = true; });
  async function loadMine() {  // this seat's hand and, with the latest photo, its own reading
    if (!seated() || !GAME.takes_hand) return;
    try {
      if (photo) { photo = await api('GET', `/api/tables/${table.id}/photos/${photo.id}`); renderPhoto(); }
      const hand = photo ? photo.hand : (await api('GET', `/api/tables/${table.id}/hand`)).hand;
      if ($('hand-input') && !handTyped) $('hand-input').value = (hand || []).join(' ');  // never over typing
    } catch (e) { say(e.message); }
  }

  // ---- score sheet ------------------------------------------------------------------
  function playerName(id) { const p = table.players.find((q) => String(q.id) === String(id)); return p ? p.name : '?'; }
  const PIPS = (text) => text.replace(/,/g, ' ').split(/\s+/).filter(Boolean).map((t) => {
    const m = /^(\d{1,2})\s*[-:/]\s*(\d{1,2})$/.exec(t); return m ? (+m[1] + +m[2]) : NaN;
  });

  function renderHistory() {  // a scored game's entries; a solitaire's results (its note)
    const hist = $('history'); if (!hist) return;
    hist.innerHTML = '';
    for (const r of table.rounds) {
      const parts = Object.entries(r.scores).filter(([, v]) => v !== 0).map(([pid, v]) => `${playerName(pid)} ${v > 0 ? '+' : ''}${v}`);
      const what = table.scored ? (parts.join(', ') || 'no points') : r.note;
      const li = el('li', { class: r.undone ? 'undone' : '' },
        `${r.kind}${r.source === 'photo' ? ' (photo)' : r.source === 'camera' ? ' (camera)' : ''}: ${what}${r.undone ? ' (undone)' : ''}`);
      hist.append(li);
    }
  }

  function renderTable() {
    handChanged();
    const line = $('status-line');
    if (table.status === 'finished' && table.winner) {
      line.innerHTML = ''; line.append(el('span', { class: 'winner', id: 'winner' }, `${table.winner.name} wins with ${table.winner.total} points!`));
    } else if (table.scored) {
      line.textContent = table.players.map((p) => `${p.name} ${p.total}`).join(' \u00b7 ') + ` (to ${table.target})`;
    } else {
      line.textContent = 'Solitaire: photograph the layout for the moves and your chance to win.';
    }
    renderSeat();
    renderHistory();
    if (!table.scored) return;
    const best = Math.max(...table.players.map((p) => p.total));
    const totals = $('totals'); totals.innerHTML = '';
    for (const p of table.players) {
      const tr = el('tr', { class: p.total === best && best > 0 ? 'lead' : '' });
      tr.append(el('td', {}, p.name), el('td', { class: 'pts', 'data-player': p.id }, String(p.total)));
      totals.append(tr);
    }
    const inputs = $('round-inputs');
    if (inputs && !inputs.childElementCount) {
      if (GAME.pass_penalty) {  // Tableaux: an entry is one player's turn; a pass charges that player
        const row = el('div', { class: 'player-input turn-input' });
        row.append(el('label', { for: 'round-player' }, 'Whose turn'));
        const sel = el('select', { id: 'round-player' });
        for (const p of table.players) sel.append(el('option', { value: p.id }, p.name));
        sel.addEventListener('change', onKindChange);
        row.append(sel); inputs.append(row);
        const top = $('live-turn');  // "To move" chosen at the top of the page counts here too
        if (top) top.addEventListener('change', () => {
          const p = table.players.find((q) => String(q.seat) === top.value);
          if (p) { sel.value = String(p.id); onKindChange(); }
        });
      }
      for (const p of table.players) {
        const row = el('div', { class: 'player-input' });
        const id = 'pts-' + p.id;
        row.append(el('label', { for: id }, p.name));
        if (GAME.pass_penalty) {  // a pass scores negative
          const minus = el('button', { type: 'button', class: 'minus', 'data-player': p.id, 'aria-label': `minus for ${p.name}` }, '\u2212');
          minus.addEventListener('click', () => { const inp = $(id); const v = inp.value.trim(); inp.value = v.startsWith('-') ? v.slice(1) : '-' + v; inp.focus(); });
          row.append(minus);
        }
        row.append(el('input', { id, class: 'points', type: 'text', inputmode: 'numeric', pattern: '-?[0-9]*', maxlength: 4,
          name: 'p' + p.id, 'data-player': p.id, placeholder: '0', autocomplete: 'off' }));
        if (GAME.scores_pips_left) {  // the winner scores the pips left in the other hands
          const left = el('input', { type: 'text', class: 'left', 'data-player': p.id, autocomplete: 'off', autocapitalize: 'off',
            placeholder: 'tiles left, e.g. 3-5 6-6', 'aria-label': `tiles left in ${p.name}'s hand` });
          left.addEventListener('input', countHands);
          // a photo of this hand's tiles fills the box (read only: the table photo stays)
          const cam = el('label', { class: 'button left-photo', 'aria-label': `photo of ${p.name}'s tiles left` }, 'Photo');
          const file = el('input', { type: 'file', accept: 'image/*', capture: 'environment', class: 'visually-hidden left-file', 'data-player': p.id });
          cam.append(file);
          file.addEventListener('change', async () => {
            const f = file.files[0]; if (!f) return;
            busy(true);
            const got = await upload(await fileToBlob(f), 'left.jpg', `/api/tables/${table.id}/read-tiles`, {}, `The photo of ${p.name}'s tiles`);
            file.value = '';
            if (!got) return;
            left.value = got.tiles.join(' '); fromPhoto = true;
            say(got.unread ? `${got.unread} tile(s) could not be read on that photo: add them by hand.` : '');
            countHands();
          });
          row.append(left, cam);
        }
        inputs.append(row);
      }
    }
    const turnSel = $('round-player');  // follows the sheet; the player may choose another
    const entries = table.rounds.filter((r) => !r.undone).length;
    if (turnSel && entries !== entriesSeen) { entriesSeen = entries; turnSel.value = playerToMove(); onKindChange(); }
    const finished = table.status === 'finished';
    const form = $('round-form');
    if (form) form.hidden = finished;
    const after = $('after-win'); if (after) after.hidden = !finished;
    const rec = $('record'); if (rec) rec.disabled = finished;
  }

  // draw to 100 (RULES.md section 4): from the tiles left in each hand, the winner's points.
  // Domino: the player with no tiles left scores every opponent's pips. Blocked: the fewest
  // pips wins and scores (opponents' pips) - (own pips); a tie for fewest scores nothing.
  function countHands() {
    const rows = [...$('round-inputs').querySelectorAll('input.left')];
    const pips = rows.map((r) => PIPS(r.value));
    const note = $('count-note');
    if (pips.some((p) => p.some(Number.isNaN))) { note.textContent = 'Write the tiles left like 3-5 6-6.'; return; }
    const sums = pips.map((p) => p.reduce((a, b) => a + b, 0));
    const filled = rows.map((r) => r.value.trim() !== '');
    const empty = filled.map((f) => !f);
    const pts = [...$('round-inputs').querySelectorAll('input.points')];
    pts.forEach((p) => { p.value = ''; });
    if (filled.filter(Boolean).length < rows.length - 1) { note.textContent = ''; return; }
    if (empty.filter(Boolean).length === 1) {  // one hand is out: domino
      const w = empty.indexOf(true);
      pts[w].value = sums.reduce((a, b) => a + b, 0);
      $('round-kind').value = 'domino';
      note.textContent = `Domino: ${playerName(rows[w].dataset.player)} scores ${pts[w].value} (the pips left in the other hands).`;
      return;
    }
    if (empty.some(Boolean)) { note.textContent = ''; return; }
    const low = Math.min(...sums), winners = sums.map((s, i) => (s === low ? i : -1)).filter((i) => i >= 0);
    $('round-kind').value = 'blocked';
    if (winners.length > 1) { note.textContent = 'Blocked with a tie for the fewest pips: nobody scores.'; pts.forEach((p) => { p.value = '0'; }); return; }
    const w = winners[0], others = sums.reduce((a, b) => a + b, 0) - low;
    pts[w].value = others - low;
    note.textContent = `Blocked: ${playerName(rows[w].dataset.player)} has the fewest pips (${low}) and scores ${others} - ${low} = ${others - low}.`;
  }

  // Tableaux (RULES.md section 5): one entry per turn, the turns going round the seats from the
  // first player, so the player to move is the entries so far modulo the players.
  let entriesSeen = null;
  function playerToMove() {
    const turns = table.rounds.filter((r) => !r.undone).length;
    return String(table.players[turns % table.players.length].id);
  }
  function onKindChange() {  // Tableaux: a pass scores -3 for the player whose turn it is
    if (!GAME.pass_penalty) return;
    const kind = $('round-kind').value, penalty = String(-GAME.pass_penalty);
    const inputs = [...$('round-inputs').querySelectorAll('input.points')];
    if (kind !== 'pass') { inputs.forEach((i) => { if (i.value === penalty) i.value = ''; }); return; }
    const who = $('round-player') ? $('round-player').value : playerToMove();  // never this phone's seat
    inputs.forEach((i) => { i.value = i.dataset.player === who ? penalty : ''; });
  }

  async function recordRound(ev) {
    ev.preventDefault();
    const scores = {};
    for (const inp of $('round-inputs').querySelectorAll('input.points')) {
      const v = inp.value.trim();
      if (v === '') continue;
      if (!/^-?\d+$/.test(v)) { say(`Points for ${playerName(inp.dataset.player)} must be a whole number like 12 or -3, not "${v}".`); inp.focus(); return; }
      scores[inp.dataset.player] = Number(v);
    }
    if (!Object.keys(scores).length) { say('Type the points of at least one player.'); return; }
    const body = { scores, kind: $('round-kind').value, source: fromPhoto ? 'photo' : 'hand' };
    // one key per entry until it is stored: pressing Record again after a lost answer is no second entry
    roundKey = roundKey || newKey();
    // what was sent; the change feed may show the entry before this answer comes, and points
    // typed for the next entry meanwhile must stay
    const sent = [...$('round-inputs').querySelectorAll('input')].map((inp) => [inp, inp.value]);
    try {
      table = await api('POST', `/api/tables/${table.id}/rounds`, body, roundKey);
      roundKey = null;
      for (const [inp, v] of sent) if (inp.value === v) inp.value = '';
      const note = $('count-note'); if (note) note.textContent = '';
      fromPhoto = false; say(''); renderTable(); onKindChange();  // a pass kept: -3 for the next player
    } catch (e) { say(e.message); }
  }
  let roundKey = null;

  async function undo() {  // names the entry this page shows as the latest
    const last = table.rounds.filter((r) => !r.undone).pop();
    if (!last) { say('There is nothing to undo.'); return; }
    try { table = await api('POST', `/api/tables/${table.id}/undo`, { round_id: last.id }); say(''); renderTable(); }
    catch (e) { say(e.message); }
  }

  // ---- photo, tiles and hint ------------------------------------------------------------
  const centreOf = (t) => [t.corners.reduce((s, c) => s + c[0], 0) / 4, t.corners.reduce((s, c) => s + c[1], 0) / 4];
  function insidePoly(pt, poly) {
    let inside = false;
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      const [xi, yi] = poly[i], [xj, yj] = poly[j];
      if ((yi > pt[1]) !== (yj > pt[1]) && pt[0] < ((xj - xi) * (pt[1] - yi)) / (yj - yi) + xi) inside = !inside;
    }
    return inside;
  }
  function photoPoint(ev, svg) {  // a tap on an overlay (the page's or the zoomed one) -> photo pixels
    const r = (svg || $('overlay')).getBoundingClientRect();
    return [(ev.clientX - r.left) * photo.width / r.width, (ev.clientY - r.top) * photo.height / r.height];
  }
  function distToPoly(pt, poly) {  // 0 inside, else the distance to the nearest edge (photo px)
    if (insidePoly(pt, poly)) return 0;
    let best = Infinity;
    for (let i = 0; i < poly.length; i++) {
      const [ax, ay] = poly[i], [bx, by] = poly[(i + 1) % poly.length];
      const dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy || 1;
      const k = Math.max(0, Math.min(1, ((pt[0] - ax) * dx + (pt[1] - ay) * dy) / len2));
      best = Math.min(best, Math.hypot(pt[0] - ax - k * dx, pt[1] - ay - k * dy));
    }
    return best;
  }
  // The tile a tap means: the box under the finger, else the nearest box within 14 screen px or
  // centre within 28 screen px, so every tile answers at least a 44 px target even on a full
  // table of small tiles.
  function tileAt(pt, svg) {
    const scale = (svg || $('overlay')).getBoundingClientRect().width / photo.width;
    let best = null, bestKey = null;
    photo.tiles.forEach((t, i) => {
      const c = centreOf(t);
      const edge = distToPoly(pt, t.corners) * scale, centre = Math.hypot(c[0] - pt[0], c[1] - pt[1]) * scale;
      if (edge > 14 && centre > 28) return;
      const key = [edge > 0 ? 1 : 0, Math.min(edge, centre), centre];
      if (bestKey === null || key[0] < bestKey[0] || (key[0] === bestKey[0] && (key[1] < bestKey[1] || (key[1] === bestKey[1] && key[2] < bestKey[2])))) {
        best = i; bestKey = key;
      }
    });
    return best;
  }

  let adding = false;
  function onOverlayClick(ev) {
    if (!photo) return;
    const pt = photoPoint(ev);
    if (adding) { adding = false; $('add-tile').classList.remove('active'); $('photo-wrap').classList.remove('adding'); openFix(null, pt); return; }
    const i = tileAt(pt);
    if (i !== null) openFix(i); else openZoom(pt);  // a tap beside the tiles zooms in there
  }

  // ---- the photo full size: pan with a finger, pinch or +/- to zoom, tap a tile to fix it -------
  let zoomWidth = 0;
  function zoomTo(width, at) {  // the zoomed photo ``width`` CSS px wide; ``at``: photo px to centre
    const view = $('zoom-view'), inner = $('zoom-inner');
    const fit = view.clientWidth || window.innerWidth;
    const before = at || [(view.scrollLeft + view.clientWidth / 2) / (inner.clientWidth || 1) * photo.width,
      (view.scrollTop + view.clientHeight / 2) / (inner.clientHeight || 1) * photo.height];
    zoomWidth = Math.max(fit, Math.min(width, Math.max(fit, photo.width) * 2));
    inner.style.width = zoomWidth + 'px';
    const k = zoomWidth / photo.width;
    view.scrollLeft = before[0] * k - view.clientWidth / 2;
    view.scrollTop = before[1] * k - view.clientHeight / 2;
  }
  function openZoom(at) {
    if (!photo) return;
    const d = $('zoom-dialog');
    $('zoom-photo').src = photo.image_url;
    const svg = $('zoom-overlay');
    svg.setAttribute('viewBox', `0 0 ${photo.width} ${photo.height}`);
    svg.innerHTML = $('overlay').innerHTML;  // the same outlines, labels and hint
    if (d.showModal) d.showModal(); else d.setAttribute('open', '');
    if (!at && photo.tiles.length) {  // the middle of the tiles
      const xs = photo.tiles.flatMap((t) => t.corners.map((c) => c[0])), ys = photo.tiles.flatMap((t) => t.corners.map((c) => c[1]));
      at = [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
    }
    zoomTo(Math.min(photo.width, 3 * window.innerWidth), at || [photo.width / 2, photo.height / 2]);
  }
  function closeZoom() { const d = $('zoom-dialog'); if (d.close) d.close(); else d.removeAttribute('open'); }
  if ($('zoom-dialog')) {
    $('zoom-button').addEventListener('click', () => openZoom());
    $('zoom-in').addEventListener('click', () => zoomTo(zoomWidth * 1.6));
    $('zoom-out').addEventListener('click', () => zoomTo(zoomWidth / 1.6));
    $('zoom-close').addEventListener('click', closeZoom);
    $('zoom-overlay').addEventListener('click', (ev) => {
      const i = tileAt(photoPoint(ev, $('zoom-overlay')), $('zoom-overlay'));
      if (i !== null) { closeZoom(); openFix(i); }
    });
  }

  function renderPhoto() {
    if (!photo) return;
    if (photo.id > (table.latest_photo_id || 0)) table.latest_photo_id = photo.id;  // this hand's
    $('photo-card').hidden = false;
    renderOldMark();
    const rendered = $('rendered-note'); if (rendered) rendered.hidden = !photo.rendered;
    const img = $('photo'), svg = $('overlay');
    if (img.getAttribute('src') !== photo.image_url) img.src = photo.image_url;
    svg.setAttribute('viewBox', `0 0 ${photo.width} ${photo.height}`);
    svg.innerHTML = '';
    const a = photo.analysis || {}, adv = a.advice || null;
    const outlined = hintedOnPhoto(adv);
    // photo tiles the problems name (a hand problem may name the table tile it clashes with)
    const problemTiles = new Set((a.problems || []).filter((p) => p && typeof p === 'object').flatMap((p) =>
      p.tiles || (p.source !== 'hand' && Number.isInteger(p.tile_index) ? [p.tile_index] : [])));
    const font = Math.max(16, Math.round(Math.max(photo.width, photo.height) / 26));
    // outlines thin enough not to hide small tiles (a cluttered table seen from afar)
    const shorts = photo.tiles.map((t) => Math.min(...[0, 1].map((k) => Math.hypot(t.corners[k + 1][0] - t.corners[k][0], t.corners[k + 1][1] - t.corners[k][1])))).sort((x, y) => x - y);
    const stroke = Math.max(1.5, Math.min(Math.round(font / 6), shorts.length ? shorts[Math.floor(shorts.length / 2)] / 8 : Infinity));
    for (let i = 0; i < photo.tiles.length; i++) {
      const t = photo.tiles[i];
      const points = t.corners.map((c) => c.join(',')).join(' ');
      if (t.not_tile === true) {  // a box marked "Not a tile": drawn as removed, crossed out, no value
        svg.append(svgEl('polygon', { points, class: 'tile corrected removed', 'stroke-width': stroke, 'data-index': i, tabindex: 0, role: 'button',
          'aria-label': `tile ${i + 1}: not a tile (removed); tap to change` }));
        const [p0, p1, p2, p3] = t.corners;
        svg.append(svgEl('line', { x1: p0[0], y1: p0[1], x2: p2[0], y2: p2[1], class: 'removed-cross', 'stroke-width': stroke }));
        svg.append(svgEl('line', { x1: p1[0], y1: p1[1], x2: p3[0], y2: p3[1], class: 'removed-cross', 'stroke-width': stroke }));
        continue;
      }
      const cls = ['tile'];
      if (t.corrected) cls.push('corrected');
      else if (!t.pips) cls.push('unread');
      else if (problemTiles.has(i)) cls.push('problem');
      else if (t.pip_confidence !== null && t.pip_confidence < 0.6) cls.push('doubtful');
      if (outlined.has(i)) cls.push('hinted');
      svg.append(svgEl('polygon', { points, class: cls.join(' '),
        'stroke-width': stroke, 'data-index': i, tabindex: 0, role: 'button',
        'aria-label': `tile ${i + 1}: ${t.pips ? t.pips.join('-') : (t.face_down ? 'face down' : 'unread')}; tap to fix` }));
    }
    // values and problem numbers where the server placed them: sized to the tile, none on
    // another (vision/labels.py); a value with no room shows the tile's number, listed in the key
    const key = [];
    for (const lab of photo.labels || []) {
      if (lab.keyed) { const t = photo.tiles[lab.tile]; key.push(`${lab.text}: ${t.face_down ? 'face down' : (t.pips ? t.pips.join('-') : '?')}`); }
      if (!lab.size) continue;  // no room near its tile: in the key only
      if (lab.badge || lab.keyed) {
        svg.append(svgEl('rect', { x: lab.x - lab.w / 2, y: lab.y - lab.h / 2, width: lab.w, height: lab.h, rx: lab.h / 2,
          class: lab.badge ? 'tile-number' : 'tile-key' }));
      }
      const attrs = { x: lab.x, y: lab.y, 'font-size': lab.size, 'text-anchor': 'middle', 'dominant-baseline': 'central' };
      if (lab.badge) svg.append(svgEl('text', { ...attrs, class: 'tile-number-text', 'data-tile-number': lab.tile + 1 }, lab.text));
      else {
        svg.append(svgEl('text', { ...attrs, class: lab.keyed ? 'tile-label keyed' : 'tile-label', 'stroke-width': Math.max(1, lab.size / 6),
          'data-tile': lab.tile }, lab.text));
      }
    }
    const keyLine = $('label-key');
    if (keyLine) { keyLine.textContent = key.length ? 'Tiles numbered on the photo (no room for the value): ' + key.map((k) => 'tile ' + k).join(', ') : ''; keyLine.hidden = !key.length; }
    if (adv) drawAdvice(svg, adv, font, stroke);
    svg.onclick = onOverlayClick;
    svg.onkeydown = (e) => { if (e.key === 'Enter' && e.target.dataset && e.target.dataset.index) openFix(+e.target.dataset.index); };
    const n = photo.tiles.filter((t) => t.not_tile !== true).length, up = photo.tiles.filter((t) => t.pips).length;
    const gone = photo.tiles.length - n;
    $('tiles-line').textContent = (n ? `${n} tile(s) seen, ${up} read. Tap a tile to fix it.` : 'No tiles seen in this photo.') +
      (gone ? ` ${gone} box(es) marked "not a tile" are crossed out.` : '');
    renderAnalysis(a);
  }

  // The hint's tiles as "low-high" text (the action's ``tiles``, engine/actions.py).
  const tileText = (pips) => (pips ? [...pips].sort((x, y) => x - y).join('-') : null);
  const hintTiles = (adv) => new Set((adv && adv.tiles) || []);
  // Photo tiles to outline: the advice's outline (the tile its place is next to, ...) and every
  // face-up tile showing one of the hint's tiles.
  function hintedOnPhoto(adv) {
    const out = new Set((adv && adv.outline) || []), want = hintTiles(adv);
    photo.tiles.forEach((t, i) => { if (!t.face_down && want.has(tileText(t.pips))) out.add(i); });
    return out;
  }
  // The player's own tiles (hand or drawn tile) under the hint, the hint's tiles outlined.
  function renderHand(box, a, adv) {
    const hand = a.hand || [];
    if (!hand.length) return;
    const want = hintTiles(adv);
    const p = el('p', { class: 'hand-tiles', id: 'hand-tiles' });
    p.append(el('span', { class: 'small' }, GAME.hand === 'drawn' ? 'The tile you drew: ' : 'Your hand: '));
    for (const t of hand) {
      const cls = want.has(t) ? 'hand-tile hinted' : 'hand-tile';
      p.append(el('span', { class: cls, 'data-tile': t, 'aria-label': `${t}${want.has(t) ? ' (the hint plays it)' : ''}` }, t));
    }
    box.append(p);
  }

  function drawAdvice(svg, adv, font, stroke) {
    for (const [i, j] of adv.pairs || []) {  // tiles removed together
      const p = photo.tiles[i], q = photo.tiles[j]; if (!p || !q) continue;
      const [x1, y1] = centreOf(p), [x2, y2] = centreOf(q);
      svg.append(svgEl('line', { x1, y1, x2, y2, class: 'pair-line', 'stroke-width': stroke }));
    }
    let label = null, target = null;
    const bbox = (pts) => { const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
      return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]; };
    if (adv.ghost) {
      svg.append(svgEl('polygon', { points: adv.ghost.corners.map((c) => c.join(',')).join(' '), class: 'ghost',
        'stroke-width': stroke * 1.5, id: 'ghost' }));
      label = adv.label || ('play ' + adv.ghost.label + ' here');
      target = bbox(adv.ghost.corners);
    } else if ((adv.outline || []).length) {
      label = adv.label || ((adv.pairs || []).length ? 'remove' : 'this one');
      target = bbox(adv.outline.flatMap((i) => (photo.tiles[i] ? photo.tiles[i].corners : [])));
    }
    if (label && target && isFinite(target[0])) placeLabel(svg, label, target, font);
  }

  // The hint's label: beside its target (above, below, left or right), inside the photo, where it
  // covers the least of the tiles.
  function placeLabel(svg, label, target, bigFont) {
    const font = bigFont * 0.85, w = label.length * font * 0.6 + 8, h = font * 1.3;
    const boxes = photo.tiles.map((t) => { const xs = t.corners.map((p) => p[0]), ys = t.corners.map((p) => p[1]);
      return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]; });
    const cx = (target[0] + target[2]) / 2, cy = (target[1] + target[3]) / 2;
    const centres = photo.tiles.map(centreOf);
    const overlap = (r, b) => Math.max(0, Math.min(r[2], b[2]) - Math.max(r[0], b[0])) * Math.max(0, Math.min(r[3], b[3]) - Math.max(r[1], b[1]));
    // every spot of a grid over the photo: hide no tile's value, cover little, stay close
    let best = null;
    for (let Y = 2; Y <= photo.height - h - 2; Y += h / 3) {
      for (let X = 2; X <= photo.width - w - 2; X += w / 8) {
        const r = [X, Y, X + w, Y + h];
        const hidden = centres.filter((c) => c[0] > r[0] && c[0] < r[2] && c[1] > r[1] && c[1] < r[3]).length;
        const dist = Math.hypot(X + w / 2 - cx, Y + h / 2 - cy);
        const cost = hidden * 1e9 + boxes.reduce((s, b) => s + overlap(r, b), 0) + overlap(r, target) * 4 + dist * h * 2;
        if (best === null || cost < best.cost) best = { cost, X, Y };
      }
    }
    if (best === null) best = { X: 2, Y: 2 };  // a photo smaller than the label
    svg.append(svgEl('rect', { x: best.X, y: best.Y, width: w, height: h, rx: font / 4, class: 'hint-label-bg', id: 'hint-label-bg' }));
    svg.append(svgEl('text', { x: best.X + w / 2, y: best.Y + h / 2, 'font-size': font, 'text-anchor': 'middle',
      'dominant-baseline': 'central', class: 'hint-label', id: 'hint-where' }, label));
  }

  // What a reading without a hand asks of this phone, in words that fit what it shows: the
  // hand box exists only for a phone in a seat.
  function askForHand() {
    if (seated()) return GAME.hand === 'drawn'
      ? 'Which tile did you draw? Type it, pick it or photograph it in the box below the photo: the hint is about that tile.'
      : "Type your hand in the 'Your hand' box below the photo to see your legal moves and the hint.";
    if (code && $('seat-card')) return 'Choose who you are (above) to give your hand and see your moves and the hint.';
    return 'Each player sees the moves and the hint for their own hand on their own phone.';
  }
  const ASKS = new Set(['no_hand', 'no_drawn']);  // a reading's "problems" that ask for the hand, not faults

  function renderAnalysis(a) {
    const box = $('analysis'); box.innerHTML = '';
    const slot = $('hint-slot'); slot.innerHTML = '';
    const adv = a.advice;
    if (adv) {  // the hint first, above the photo it is drawn on
      const hb = el('div', { class: 'hint-box', id: 'hint', 'data-tiles': (adv.tiles || []).join(' ') });
      hb.append(el('div', { class: 'what', id: 'hint-text' }, adv.text));
      if (adv.details && adv.details.length) {
        const d = el('details', { id: 'hint-details' });
        d.append(el('summary', {}, 'Why this move'));
        const ul = el('ul', {}); for (const line of adv.details) ul.append(el('li', {}, line));
        d.append(ul); hb.append(d);
      }
      slot.append(hb);
    }
    renderHand(box, a, adv);
    const asks = a.asks_hand || (a.problems || []).some((p) => p && typeof p === 'object' && ASKS.has(p.kind));
    const message = asks && !adv ? askForHand() : a.message;
    if (message) (adv ? box : slot).append(el('p', { class: 'notice', id: 'analysis-message' }, message));
    const inMessage = (p) => a.message && typeof p === 'object' && p.blocking &&
      [p.plain, p.message].some((t) => t && a.message.toLowerCase().includes(t.replace(/\.$/, '').toLowerCase()));
    const problems = (a.problems || []).filter((p) => !(p && typeof p === 'object' && ASKS.has(p.kind)))
      .filter((p) => !inMessage(p));
    if (problems.length) {
      const ul = el('ul', { class: 'problems' });
      for (const p of problems) {
        // in players' words; the reader's own sentence (confidences, overlaps) under "Why"
        const li = el('li', {}, typeof p === 'string' ? p : (p.plain || p.message || ''));
        if (typeof p === 'object' && p.plain && p.message && p.plain !== p.message) {
          const why = el('details', { class: 'why' });
          why.append(el('summary', {}, 'Why'), el('p', { class: 'small' }, p.message));
          li.append(why);
        }
        ul.append(li);
      }
      box.append(el('h3', {}, 'What looks wrong'), ul);
    }
    const moves = a.legal_moves || [];
    if (a.ok !== false || moves.length) {
      const d = el('details', { class: 'moves-box' });
      d.append(el('summary', {}, `All legal moves (${moves.length})`));
      const ol = el('ol', { class: 'moves', id: 'moves' });
      for (const m of moves.slice(0, 30)) ol.append(el('li', {}, m.words || m.text || ''));
      if (moves.length > 30) ol.append(el('li', {}, `\u2026 and ${moves.length - 30} more`));
      if (!moves.length) ol.append(el('li', {}, 'none'));
      d.append(ol); box.append(d);
    }
  }

  // ---- tile correction: tap a tile, tap two numbers -----------------------------------------
  let fixIndex = null, fixAt = null, firstHalf = null;
  function preview(corners) {  // the tapped tile (or spot) cut out of the photo, big
    const c = $('fix-preview'), img = $('photo');
    const xs = corners.map((p) => p[0]), ys = corners.map((p) => p[1]);
    const pad = 0.15 * Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
    const x0 = Math.max(0, Math.min(...xs) - pad), y0 = Math.max(0, Math.min(...ys) - pad);
    const x1 = Math.min(photo.width, Math.max(...xs) + pad), y1 = Math.min(photo.height, Math.max(...ys) + pad);
    const w = Math.max(1, x1 - x0), h = Math.max(1, y1 - y0), s = Math.min(280 / w, 160 / h);
    c.width = Math.round(w * s); c.height = Math.round(h * s);
    const g = c.getContext('2d');
    const k = img.naturalWidth / photo.width || 1;
    try { g.drawImage(img, x0 * k, y0 * k, w * k, h * k, 0, 0, c.width, c.height); } catch (e) { /* not loaded */ }
    g.strokeStyle = '#e0a100'; g.lineWidth = 3; g.beginPath();
    corners.forEach((p, i) => { const X = (p[0] - x0) * s, Y = (p[1] - y0) * s; if (i) g.lineTo(X, Y); else g.moveTo(X, Y); });
    g.closePath(); g.stroke();
  }
  function openFix(i, at) {
    if (!code) { say('Join the table with its code to fix tiles.'); return; }
    fixIndex = i; fixAt = at || null; firstHalf = null;
    const t = i === null ? null : photo.tiles[i];
    let corners;
    if (t) corners = t.corners;
    else {
      const side = photo.tiles.length ? photo.tiles.map((q) => Math.hypot(q.corners[1][0] - q.corners[0][0], q.corners[1][1] - q.corners[0][1])).sort((x, y) => x - y)[Math.floor(photo.tiles.length / 2)] : photo.width / 12;
      corners = [[at[0] - side / 2, at[1] - side], [at[0] + side / 2, at[1] - side], [at[0] + side / 2, at[1] + side], [at[0] - side / 2, at[1] + side]];
    }
    $('fix-title').textContent = t ? `Tile ${i + 1}: ${t.face_down ? 'face down' : (t.pips ? 'read as ' + t.pips.join('-') : 'not read')}` : 'Add a tile here';
    // the reader's own details of this box, for whoever wants them
    const why = $('fix-why');
    if (why) {
      const bits = [];
      if (t && typeof t.confidence === 'number') bits.push(`detector confidence ${t.confidence.toFixed(2)}`);
      if (t && typeof t.pip_confidence === 'number') bits.push(`pip reading confidence ${t.pip_confidence.toFixed(2)}`);
      if (t && t.note) bits.push(t.note);
      $('fix-why-text').textContent = bits.join('; ');
      why.hidden = !bits.length; why.open = false;
    }
    preview(corners);
    const grid = $('fix-grid'); grid.innerHTML = '';
    for (let v = 0; v <= maxPip; v++) {
      const b = el('button', { type: 'button', class: 'pip', 'data-value': v }, String(v));
      b.addEventListener('click', () => pickHalf(v, b));
      grid.append(b);
    }
    $('fix-step').textContent = 'Tap the number on one half, then on the other.';
    $('fix-reset').hidden = !(t && t.corrected);
    $('fix-not-tile').hidden = !t; $('fix-face-down').hidden = !t;
    const d = $('fix-dialog');
    if (d.showModal) d.showModal(); else d.setAttribute('open', '');
  }
  function pickHalf(v, b) {
    if (firstHalf === null) {
      firstHalf = v; b.classList.add('chosen');
      $('fix-step').textContent = `${v} \u2013 ? : now tap the other half.`;
      return;
    }
    sendFix({ pips: [firstHalf, v] });
  }
  async function sendFix(body) {
    const d = $('fix-dialog'); d.close ? d.close('sent') : d.removeAttribute('open');
    const base = `/api/tables/${table.id}/photos/${photo.id}/tiles`;
    busy(true);
    try {
      if (fixIndex === null) photo = await api('POST', base, { at: fixAt, pips: body.pips });
      else if (body.reset) photo = await api('DELETE', `${base}/${fixIndex}`);
      else photo = await api('PUT', `${base}/${fixIndex}`, body);
      say(''); renderPhoto();
    } catch (e) { say(e.message); } finally { busy(false); fixIndex = null; fixAt = null; }
  }
  $('fix-not-tile').addEventListener('click', () => sendFix({ kind: 'not_tile' }));
  $('fix-face-down').addEventListener('click', () => sendFix({ kind: 'face_down' }));
  $('fix-reset').addEventListener('click', () => sendFix({ reset: true }));
  $('fix-cancel').addEventListener('click', () => { const d = $('fix-dialog'); d.close ? d.close('cancel') : d.removeAttribute('open'); fixIndex = null; });
  const addTile = $('add-tile');
  if (addTile) addTile.addEventListener('click', () => {
    if (!code) { say('Join the table with its code to fix tiles.'); return; }
    adding = !adding; addTile.classList.toggle('active', adding); $('photo-wrap').classList.toggle('adding', adding);
    say(adding ? 'Tap the photo where the missed tile lies.' : '');
  });

  // ---- capture -------------------------------------------------------------------------------
  function shrink(source, w, h) {  // draw onto a canvas at most MAX_SIDE px on the long side -> JPEG blob
    const s = Math.min(1, MAX_SIDE / Math.max(w, h));
    const c = document.createElement('canvas');
    c.width = Math.round(w * s); c.height = Math.round(h * s);
    c.getContext('2d').drawImage(source, 0, 0, c.width, c.height);
    return new Promise((resolve) => c.toBlob(resolve, 'image/jpeg', 0.85));
  }
  async function fileToBlob(file) {
    if (!/^image\//.test(file.type)) return file;  // let the server say what is wrong with it
    try {
      const bmp = await createImageBitmap(file, { imageOrientation: 'from-image' });
      const blob = await shrink(bmp, bmp.width, bmp.height);
      return blob || file;
    } catch (e) { return file; }  // not decodable here: send as is, the server answers clearly
  }
  // A photo the server did not take: said in words at the top of the screen (what: "The
  // photo", "The photo of your hand", ...), with the server's reason.
  function uploadFailed(what, reason) {
    say(`${what} was not read: ${reason}`);
    const m = $('message'); m.classList.add('pinned');  // stays at the top while the page scrolls
    m.scrollIntoView({ block: 'start' });
  }
  async function upload(blob, name, url, extra, what) {
    what = what || 'The photo';
    if (blob.size > boot.max_upload) { uploadFailed(what, `it is ${(blob.size / 1048576).toFixed(1)} MB; at most ${Math.floor(boot.max_upload / 1048576)} MB are accepted.`); return null; }
    const fd = new FormData(); fd.append('photo', blob, name || 'photo.jpg');
    for (const [k, v] of Object.entries(extra || {})) fd.append(k, v);
    busy(true); say('');
    try { return await api('POST', url, fd, newKey()); } catch (e) {
      busy(false); uploadFailed(what, e.message); return null;  // the page no longer moves under the message
    } finally { busy(false); }
  }
  // ---- the previous photo stays marked as such after a failed upload, until a new one is read
  let oldPhotoId = null;
  function renderOldMark() {
    const old = $('old-photo'); if (!old) return;
    old.hidden = !(photo && photo.id === oldPhotoId);
  }
  async function uploadTable(blob, name) {
    const extra = {};
    if ($('hand-input') && seated() && $('hand-input').value.trim()) extra.hand = $('hand-input').value;
    const got = await upload(blob, name, `/api/tables/${table.id}/photos`, extra);
    if (got) {
      photo = got; renderPhoto();
      // the hint with who is to move and the totals above it when they fit on one screen,
      // else the photo card (its hint first) at the top of the screen
      const card = $('photo-card').getBoundingClientRect().top + window.scrollY;
      const hint = $('hint-slot').getBoundingClientRect().height;
      if (card + hint + 160 <= window.innerHeight) window.scrollTo({ top: 0, behavior: 'smooth' });
      else $('photo-card').scrollIntoView({ behavior: 'smooth' });
    }
    else if (photo) { oldPhotoId = photo.id; renderOldMark(); }
  }
  const input = $('photo-input');
  if (input) input.addEventListener('change', async () => {
    const f = input.files[0]; if (!f) return;
    busy(true);
    const blob = await fileToBlob(f);
    await uploadTable(blob, f.name.replace(/\.[^.]*$/, '') + '.jpg');
    input.value = '';
  });
  const handPhoto = $('hand-photo-input');
  if (handPhoto) handPhoto.addEventListener('change', async () => {  // kept apart from the table's photo
    const f = handPhoto.files[0]; if (!f) return;
    busy(true);
    const got = await upload(await fileToBlob(f), 'hand.jpg', `/api/tables/${table.id}/hand-photo`, {}, GAME.hand === 'drawn' ? 'The photo of the tile you drew' : 'The photo of your hand');
    handPhoto.value = '';
    if (!got) return;
    $('hand-input').value = got.hand.join(' ');
    say(got.message || '');
    if (got.photo) { photo = got.photo; renderPhoto(); }
  });
  const laptop = $('laptop-button');
  if (laptop) laptop.addEventListener('click', async () => {
    busy(true); say('');
    try { photo = await api('POST', `/api/tables/${table.id}/camera`, undefined, newKey()); renderPhoto(); } catch (e) { say(e.message); } finally { busy(false); }
  });
  const live = $('live-button');
  if (live) live.addEventListener('click', async () => {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) { say('This browser gives no live camera; use "Take a photo".'); return; }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment', width: { ideal: 1920 } }, audio: false });
      $('live-video').srcObject = stream; $('live').hidden = false;
    } catch (e) { say('The camera could not be opened: ' + e.message); }
  });
  const shoot = $('live-shoot');
  if (shoot) shoot.addEventListener('click', async () => {
    const v = $('live-video'); if (!v.videoWidth) return;
    await uploadTable(await shrink(v, v.videoWidth, v.videoHeight), 'live.jpg');
  });

  // ---- the Big Clock's drawn tile picked: its two numbers tapped, then used at once -----------
  const pick = $('drawn-pick');
  if (pick) {
    let first = null;
    for (let v = 0; v <= maxPip; v++) {
      const b = el('button', { type: 'button', class: 'pip', 'data-value': v, 'aria-label': `number ${v}` }, String(v));
      b.addEventListener('click', () => {
        if (first === null) { first = v; b.classList.add('chosen'); $('drawn-pick-note').textContent = `${v} – ? : now tap the other number.`; return; }
        $('hand-input').value = `${Math.min(first, v)}-${Math.max(first, v)}`; handTyped = true;
        first = null; pick.querySelectorAll('.chosen').forEach((c) => c.classList.remove('chosen'));
        $('drawn-pick-note').textContent = 'Or pick it: tap its two numbers.';
        $('hand-form').requestSubmit();
      });
      pick.append(b);
    }
  }
  const handForm = $('hand-form');
  if (handForm) {
    handForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (!seated()) { say('Choose who you are first: your hand stays on your phone\u2019s seat.'); return; }
      busy(true);
      try {
        const got = await api('PUT', `/api/tables/${table.id}/hand`, { hand: $('hand-input').value });
        $('hand-input').value = got.hand.join(' '); handTyped = false;
        if (got.photo) { photo = got.photo; renderPhoto(); }
        else say(GAME.hand === 'drawn' ? 'Tile kept. Take a photo of the clock for the hint.' : 'Hand kept. Take a photo of the table for your moves.');
        if (got.photo) say('');
      } catch (e) { say(e.message); } finally { busy(false); }
    });
  }
  const form = $('round-form');
  if (form) {
    form.noValidate = true;  // recordRound says what is wrong, in words, naming the player
    form.addEventListener('submit', recordRound); $('undo').addEventListener('click', undo);
    $('round-kind').addEventListener('change', onKindChange);
  }
  else if ($('undo')) $('undo').addEventListener('click', undo);  // a solitaire's results
  if ($('undo-after')) $('undo-after').addEventListener('click', undo);
  if ($('seat-change')) $('seat-change').addEventListener('click', leaveSeat);
  // ---- one table, one flow: a rematch moves every phone; a new hand clears every phone -------
  let moving = false;
  async function moveTo(id) {  // the table went on at table ``id`` (this phone's Rematch or another's)
    if (moving) return; moving = true;
    if (!code) { window.location.href = `/t/${id}`; return; }  // a watcher watches the new table
    try { const t = await api('POST', `/api/tables/${table.id}/next`); window.location.href = t.url; }
    catch (e) { moving = false; say(e.message); }
  }
  const rematch = $('rematch');
  if (rematch) rematch.addEventListener('click', async () => {
    try { moving = true; const t = await api('POST', `/api/tables/${table.id}/rematch`, {}); window.location.href = t.url; }
    catch (e) { moving = false; say(e.message); }
  });
  const newHand = $('new-hand');
  if (newHand) newHand.addEventListener('click', async () => {
    if (!window.confirm('Start the next hand? The photo, the hint and every player\u2019s hand are cleared on every phone.')) return;
    try { table = await api('POST', `/api/tables/${table.id}/new-hand`); renderTable(); } catch (e) { say(e.message); }
  });
  // The table as the server has it now: a new hand (no photo of it yet) clears this phone's
  // photo, hint and hand; a rematch elsewhere shows where the game went on.
  function handChanged() {
    if (table.latest_photo_id === null && photo) {
      photo = null; oldPhotoId = null;
      $('photo-card').hidden = true; $('hint-slot').innerHTML = ''; $('analysis').innerHTML = '';
      if ($('hand-input')) { $('hand-input').value = ''; handTyped = false; }
      say('');
    }
    const next = $('next-table');
    if (next) {
      next.hidden = !table.next_id;
      if (table.next_id) $('next-link').setAttribute('href', `/t/${table.next_id}`);
    }
  }
  if ($('next-link')) $('next-link').addEventListener('click', (ev) => { ev.preventDefault(); moveTo(table.next_id); });
  const del = $('delete-table');
  if (del) del.addEventListener('click', async () => {
    if (!window.confirm(`Delete table ${table.id} with its photos and scores? This cannot be undone.`)) return;
    try { await api('DELETE', `/api/tables/${table.id}`); window.location.href = '/'; } catch (e) { say(e.message); }
  });
  // static/live.js brings other phones' and the camera's changes in through these.
  window.dominoTable = {
    setTable(t) { table = t; seatStillHeld(); renderTable(); },
    photoBlob: fileToBlob,  // a photo file held upright and shrunk (live.js: one photo per play)
    moveTo,
    async showPhoto(id) {
      if (photo && photo.id === id) return;
      try { photo = await api('GET', `/api/tables/${table.id}/photos/${id}`); renderPhoto(); } catch (e) { say(e.message); }
    },
  };
  renderTable();
  renderPhoto();
  (async () => {
    if (seated()) await loadMine();
    // Listeners are attached and this seat's reading is in: tests (and scripts) wait for this mark.
    document.body.dataset.ready = 'true';
  })();
})();
