// The table page: upload photos, draw the tiles and the hint on the photo, fix tiles, keep score.
// Talks only to the JSON API (/api/...). No framework, no build step.
(function () {
  'use strict';
  const boot = JSON.parse(document.getElementById('boot').textContent);
  let table = boot.table, photo = boot.photo, usedSuggestion = false;
  const code = boot.code, maxPip = boot.max_pip, MAX_SIDE = 1600;
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';

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
  function say(text) { const m = $('message'); m.textContent = text || ''; m.hidden = !text; }
  function busy(on) { const b = $('busy'); if (b) b.hidden = !on; }

  // A fresh idempotency key (works on plain http too, where crypto.randomUUID is missing).
  function newKey() {
    const b = new Uint8Array(16); crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  }
  // key: sent as Idempotency-Key; such a request is tried once more when the answer is lost,
  // and the server answers the retry with the first result (nothing is stored twice).
  async function api(method, url, body, key) {
    const opts = { method, headers: { 'Accept': 'application/json' } };
    if (code) opts.headers['X-Table-Code'] = code;
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

  // ---- score sheet ------------------------------------------------------------------
  function playerName(id) { const p = table.players.find((q) => String(q.id) === String(id)); return p ? p.name : '?'; }

  function renderTable() {
    const line = $('status-line');
    if (table.status === 'finished' && table.winner) {
      line.innerHTML = ''; line.append(el('span', { class: 'winner', id: 'winner' }, `${table.winner.name} wins with ${table.winner.total} points!`));
    } else if (table.scored) {
      line.textContent = table.players.map((p) => `${p.name} ${p.total}`).join(' \u00b7 ') + ` (to ${table.target})`;
    } else {
      line.textContent = 'Solitaire: photograph the layout for the moves and your chance to win.';
    }
    if (!table.scored) return;
    const best = Math.max(...table.players.map((p) => p.total));
    const totals = $('totals'); totals.innerHTML = '';
    for (const p of table.players) {
      const tr = el('tr', { class: p.total === best && best > 0 ? 'lead' : '' });
      tr.append(el('td', {}, p.name), el('td', { class: 'pts', 'data-player': p.id }, String(p.total)));
      totals.append(tr);
    }
    const hist = $('history'); hist.innerHTML = '';
    for (const r of table.rounds) {
      const parts = Object.entries(r.scores).filter(([, v]) => v !== 0).map(([pid, v]) => `${playerName(pid)} ${v > 0 ? '+' : ''}${v}`);
      const li = el('li', { class: r.undone ? 'undone' : '' },
        `${r.kind}${r.source === 'photo' ? ' (photo)' : ''}: ${parts.join(', ') || 'no points'}${r.undone ? ' (undone)' : ''}`);
      hist.append(li);
    }
    const inputs = $('round-inputs');
    if (inputs && !inputs.childElementCount) {
      for (const p of table.players) {
        const row = el('label', { class: 'player-input' });
        row.append(el('span', {}, p.name));
        row.append(el('input', { type: 'number', inputmode: 'numeric', min: table.game === 'tableaux' ? -3 : 0, max: 999,
          name: 'p' + p.id, 'data-player': p.id, placeholder: '0' }));
        inputs.append(row);
      }
    }
    const rec = $('record'); if (rec) rec.disabled = table.status === 'finished';
  }

  async function recordRound(ev) {
    ev.preventDefault();
    const scores = {};
    for (const inp of $('round-inputs').querySelectorAll('input')) {
      if (inp.value.trim() !== '') scores[inp.dataset.player] = Number(inp.value);
    }
    if (!Object.keys(scores).length) { say('Type the points of at least one player.'); return; }
    const body = { scores, kind: $('round-kind').value, source: usedSuggestion ? 'photo' : 'hand',
      photo_id: usedSuggestion && photo ? photo.id : null };
    // one key per entry until it is stored: pressing Record again after a lost answer is no second entry
    roundKey = roundKey || newKey();
    try {
      table = await api('POST', `/api/tables/${table.id}/rounds`, body, roundKey);
      roundKey = null;
      for (const inp of $('round-inputs').querySelectorAll('input')) inp.value = '';
      usedSuggestion = false; say(''); renderTable();
    } catch (e) { say(e.message); }
  }
  let roundKey = null;

  async function undo() {  // names the entry this page shows as the latest
    const last = table.rounds.filter((r) => !r.undone).pop();
    if (!last) { say('There is nothing to undo.'); return; }
    try { table = await api('POST', `/api/tables/${table.id}/undo`, { round_id: last.id }); say(''); renderTable(); }
    catch (e) { say(e.message); }
  }

  function renderSuggestion() {
    const s = $('suggestion'); if (!s) return;
    s.innerHTML = '';
    if (!photo || !photo.suggestion || !photo.suggestion.points || table.status === 'finished') { s.hidden = true; return; }
    s.hidden = false;
    s.append(el('span', {}, `From the photo: ${photo.suggestion.points} points (${photo.suggestion.why}). Give to: `));
    for (const p of table.players) {
      const b = el('button', { type: 'button', class: 'suggest', 'data-player': p.id }, p.name);
      b.addEventListener('click', () => {
        const inp = $('round-inputs').querySelector(`input[data-player="${p.id}"]`);
        inp.value = photo.suggestion.points; usedSuggestion = true; inp.focus();
      });
      s.append(b, document.createTextNode(' '));
    }
  }

  // ---- photo, tiles and hint ------------------------------------------------------------
  function moveText(m) {
    if (m === null || m === undefined) return '';
    if (typeof m !== 'object') return String(m);
    return m.text || m.string || m.label || m.action_string || m.description || JSON.stringify(m.action || m);
  }
  function pairsIn(v, out) {  // every [a, b] tile value inside the hint's action JSON
    if (Array.isArray(v)) {
      if (v.length === 2 && v.every(Number.isInteger)) out.push(v);
      else v.forEach((x) => pairsIn(x, out));
    } else if (v && typeof v === 'object') Object.values(v).forEach((x) => pairsIn(x, out));
    return out;
  }
  function hintIndices(h, a) {
    // the hinted tiles on the photo: tiles named in the action (solitaires: the pair removed,
    // the tile moved) and, for draw100, the tile whose open end the hint plays on ("where")
    const key = (p) => (p[0] <= p[1] ? p[0] + '-' + p[1] : p[1] + '-' + p[0]);
    const want = new Set(pairsIn(h.action_json, []).map(key)), out = new Set(), where = new Set();
    photo.tiles.forEach((t, i) => { if (t.pips && want.has(key(t.pips))) out.add(i); });
    const end = h.action_json && h.action_json.end;
    const ends = (a.layout && a.layout.open_ends) || [];
    for (const e of ends) if (end !== undefined && e.id === end && Number.isInteger(e.tile_index)) where.add(e.tile_index);
    return { tiles: out, where };
  }

  function renderPhoto() {
    if (!photo) return;
    $('photo-card').hidden = false;
    const img = $('photo'), svg = $('overlay');
    if (img.getAttribute('src') !== photo.image_url) img.src = photo.image_url;
    svg.setAttribute('viewBox', `0 0 ${photo.width} ${photo.height}`);
    svg.innerHTML = '';
    const a = photo.analysis || {}, hint = a.hint || null;
    const hi = hint ? hintIndices(hint, a) : { tiles: new Set(), where: new Set() };
    const problemTiles = new Set((a.problems || []).filter((p) => p && p.source !== 'hand' && Number.isInteger(p.tile_index)).map((p) => p.tile_index));
    const font = Math.max(16, Math.round(Math.max(photo.width, photo.height) / 26));
    const stroke = Math.max(2, Math.round(font / 6));
    const area = (c) => Math.abs(c.reduce((s, p, k) => { const q = c[(k + 1) % c.length]; return s + p[0] * q[1] - q[0] * p[1]; }, 0)) / 2;
    const order = photo.tiles.map((t, i) => i).sort((i, j) => area(photo.tiles[j].corners) - area(photo.tiles[i].corners));
    for (const i of order) {  // big boxes first, so a small tile drawn later stays tappable
      const t = photo.tiles[i];
      const cls = ['tile'];
      if (t.corrected) cls.push('corrected');
      else if (!t.pips) cls.push('unread');
      else if (problemTiles.has(i)) cls.push('problem');
      else if (t.pip_confidence !== null && t.pip_confidence < 0.6) cls.push('doubtful');
      if (hi.tiles.has(i) || hi.where.has(i)) cls.push('hinted');
      const poly = svgEl('polygon', { points: t.corners.map((c) => c.join(',')).join(' '), class: cls.join(' '),
        'stroke-width': stroke, 'data-index': i, tabindex: 0, role: 'button',
        'aria-label': `tile ${i + 1}: ${t.pips ? t.pips.join('-') : (t.face_down ? 'face down' : 'unread')}; tap to fix` });
      poly.addEventListener('click', () => openFix(i));
      poly.addEventListener('keydown', (e) => { if (e.key === 'Enter') openFix(i); });
      svg.append(poly);
      const label = t.face_down ? '\u25a0' : (t.pips ? t.pips.join('-') : '?');
      const cx = t.corners.reduce((s, c) => s + c[0], 0) / 4, cy = t.corners.reduce((s, c) => s + c[1], 0) / 4;
      svg.append(svgEl('text', { x: cx, y: cy, 'font-size': font, 'text-anchor': 'middle', 'dominant-baseline': 'middle',
        class: 'tile-label', 'stroke-width': stroke }, label));
    }
    for (const i of hi.where) {  // draw100: the open end to play on
      const t = photo.tiles[i]; if (!t) continue;
      const xs = t.corners.map((c) => c[0]), ys = t.corners.map((c) => c[1]);
      const cx = (Math.min(...xs) + Math.max(...xs)) / 2, top = Math.min(...ys);
      svg.append(svgEl('text', { x: cx, y: Math.max(font, top - font / 2), 'font-size': font, 'text-anchor': 'middle',
        class: 'hint-label', 'stroke-width': stroke, id: 'hint-where' }, 'play ' + hint.action + ' here'));
    }
    const n = photo.tiles.length, up = photo.tiles.filter((t) => t.pips).length;
    $('tiles-line').textContent = n ? `${n} tile(s) seen, ${up} read. Tap a tile to fix its value.` : 'No tiles seen in this photo.';
    renderAnalysis(a);
    renderSuggestion();
  }

  function renderAnalysis(a) {
    const box = $('analysis'); box.innerHTML = '';
    if (a.message) box.append(el('p', { class: 'notice', id: 'analysis-message' }, a.message));
    if (a.problems && a.problems.length) {
      const ul = el('ul', { class: 'problems' });
      for (const p of a.problems) ul.append(el('li', {}, typeof p === 'string' ? p : (p.message || JSON.stringify(p))));
      box.append(el('h3', {}, 'What looks wrong'), ul);
    }
    const h = a.hint;
    if (h) {
      const hb = el('div', { class: 'hint-box', id: 'hint' });
      hb.append(el('div', { class: 'what' }, 'Hint: ' + (moveText(h.action_text || h.text || h.action) || 'nothing to play')));
      if (h.explanation) hb.append(el('p', {}, h.explanation));
      if (typeof h.win_chance === 'number') hb.append(el('p', { id: 'win-chance' }, `Chance to win from here: ${Math.round(h.win_chance * 100)}%`));
      if (h.ranking && h.ranking.length > 1) {
        const unit = h.value_unit === 'win_rate' ? (v) => Math.round(v * 100) + '%' : (v) => (Math.round(v * 10) / 10) + ' ' + (h.value_unit || '');
        hb.append(el('p', { class: 'small' }, 'Next best: ' + h.ranking.slice(1, 4).map((r) => `${r.action} (${unit(r.value)})`).join(', ')));
      }
      box.append(hb);
    }
    if (a.state_text) {
      const d = el('details', { class: 'small' });
      d.append(el('summary', {}, 'What the reader rebuilt'), el('pre', { class: 'state' }, a.state_text));
      box.append(d);
    }
    const moves = a.legal_moves || [];
    if (a.ok !== false || moves.length) {
      box.append(el('h3', {}, `Legal moves (${moves.length})`));
      const ol = el('ol', { class: 'moves', id: 'moves' });
      for (const m of moves.slice(0, 30)) ol.append(el('li', {}, moveText(m)));
      if (moves.length > 30) ol.append(el('li', {}, `\u2026 and ${moves.length - 30} more`));
      if (!moves.length) ol.append(el('li', {}, 'none'));
      box.append(ol);
    }
  }

  // ---- tile correction -------------------------------------------------------------------
  let fixIndex = null;
  function openFix(i) {
    if (!code) { say('Join the table with its code to fix tiles.'); return; }
    fixIndex = i;
    const t = photo.tiles[i], pa = $('fix-a'), pb = $('fix-b');
    for (const s of [pa, pb]) { s.innerHTML = ''; for (let v = 0; v <= maxPip; v++) s.append(el('option', { value: v }, String(v))); }
    pa.value = t.pips ? t.pips[0] : 0; pb.value = t.pips ? t.pips[1] : 0;
    $('fix-reset').hidden = !t.corrected;
    const d = $('fix-dialog');
    if (d.showModal) d.showModal(); else d.setAttribute('open', '');
  }
  $('fix-dialog').addEventListener('close', async () => {
    const v = $('fix-dialog').returnValue; if (fixIndex === null || v === 'cancel' || !v) return;
    const url = `/api/tables/${table.id}/photos/${photo.id}/tiles/${fixIndex}`;
    busy(true);
    try {
      photo = v === 'reset' ? await api('DELETE', url) : await api('PUT', url, { pips: [Number($('fix-a').value), Number($('fix-b').value)] });
      say(''); renderPhoto();
    } catch (e) { say(e.message); } finally { busy(false); fixIndex = null; }
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
  async function upload(blob, name) {
    if (blob.size > boot.max_upload) { say(`The photo is ${(blob.size / 1048576).toFixed(1)} MB; at most ${Math.floor(boot.max_upload / 1048576)} MB are accepted.`); return; }
    const fd = new FormData(); fd.append('photo', blob, name || 'photo.jpg');
    if ($('hand-input')) fd.append('hand', $('hand-input').value);
    busy(true); say('');
    try { photo = await api('POST', `/api/tables/${table.id}/photos`, fd, newKey()); usedSuggestion = false; renderPhoto(); $('photo-card').scrollIntoView({ behavior: 'smooth' }); }
    catch (e) { say(e.message); } finally { busy(false); }
  }
  const input = $('photo-input');
  if (input) input.addEventListener('change', async () => {
    const f = input.files[0]; if (!f) return;
    busy(true);
    const blob = await fileToBlob(f);
    await upload(blob, f.name.replace(/\.[^.]*$/, '') + '.jpg');
    input.value = '';
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
    await upload(await shrink(v, v.videoWidth, v.videoHeight), 'live.jpg');
  });

  const handForm = $('hand-form');
  if (handForm) {
    if (photo && photo.hand) $('hand-input').value = photo.hand.join(' ');
    handForm.addEventListener('submit', async (ev) => {
      ev.preventDefault(); if (!photo) { say('Take a photo first; the hand is read with it.'); return; }
      busy(true);
      try { photo = await api('PUT', `/api/tables/${table.id}/photos/${photo.id}/hand`, { hand: $('hand-input').value }); say(''); renderPhoto(); }
      catch (e) { say(e.message); } finally { busy(false); }
    });
  }
  const form = $('round-form');
  if (form) { form.addEventListener('submit', recordRound); $('undo').addEventListener('click', undo); }
  renderTable();
  renderPhoto();
  // Listeners are attached: tests (and scripts driving the page) wait for this mark.
  document.body.dataset.ready = 'true';
})();
