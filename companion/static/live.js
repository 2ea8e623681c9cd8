// Live mode of the table page: film the table (getUserMedia), send downscaled frames one at a
// time, draw the tiles' outlines on the live picture; or photo mode: one photo after each play,
// each sent as the table at rest (still=1); and on every phone, the change feed (long polling):
// plays, flags, questions and the running score as they come, without a reload.
// Talks only to /api/tables/<id>/live/... and the hooks table.js exposes (window.dominoTable).
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const card = $('live-card');
  if (!card) return;
  const boot = JSON.parse($('boot').textContent);
  const tableId = boot.table.id, code = boot.code;
  const FRAME_SIDE = 960;  // longest side of a frame sent, px
  const SVG = 'http://www.w3.org/2000/svg';
  const COLOURS = { stable: '#2e9d5b', new: '#e0a100', unsure: '#d33' };
  const names = {};
  for (const p of boot.table.players) names[p.seat] = p.name;
  const who = (seat) => (seat === null || seat === undefined ? '' : (names[seat] || `seat ${seat + 1}`));
  const camId = Array.from(crypto.getRandomValues(new Uint8Array(8)), (x) => x.toString(16).padStart(2, '0')).join('');
  let last = 0, stream = null, filming = false, frames = 0, stills = 0;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function show(id, text) { const e = $(id); if (!e) return; e.textContent = text || ''; e.hidden = !text; }
  function headers(json) {
    const h = { 'Accept': 'application/json' };
    if (code) h['X-Table-Code'] = code;
    if (json) h['Content-Type'] = 'application/json';
    return h;
  }
  // key: sent as Idempotency-Key; such a request is tried once more when the answer is lost,
  // and the server takes it once (a tap is never counted twice).
  async function call(method, url, body, key) {
    const opts = { method, headers: headers(!(body instanceof FormData) && body !== undefined) };
    if (key) opts.headers['Idempotency-Key'] = key;
    if (body !== undefined) opts.body = body instanceof FormData ? body : JSON.stringify(body);
    let res;
    try { res = await fetch(url, opts); } catch (e) {
      if (!key) throw e;
      await new Promise((r) => setTimeout(r, 1000));
      res = await fetch(url, opts);
    }
    let data = null;
    try { data = await res.json(); } catch (e) { /* not JSON */ }
    if (!res.ok) throw new Error((data && data.error && data.error.message) || ('HTTP ' + res.status));
    return data;
  }

  // ---- the change feed ---------------------------------------------------------------------
  function line(rec) {  // one record in players' words, or null for bookkeeping
    switch (rec.type) {
      case 'play':
        if (rec.action === 'pass') return `${who(rec.player)} passed`;
        return (boot.table.scored ? `${who(rec.player)} played ` : 'Played ') + (rec.tile || rec.action) +
          (rec.points ? ` (${rec.points > 0 ? '+' : ''}${rec.points})` : '');
      case 'play_withdrawn': return `Play withdrawn: ${rec.message}`;
      case 'flag': return `Not accepted: ${rec.message}`;
      case 'flag_withdrawn': return `Flag withdrawn: ${rec.message}`;
      case 'question': return `Check: ${rec.message}`;
      case 'score':
        return `${who(rec.player)} ${rec.points > 0 ? '+' : ''}${rec.points} (${rec.reason}, from the camera)` +
          (rec.stored === false ? ` \u2014 not recorded: ${rec.error}` : '');
      case 'hand_scored':
        return rec.winner === null ? `Hand blocked, a tie: no points` : `Hand ${rec.kind}: ${who(rec.winner)} scores ${rec.points}`;
      case 'hand_end': return `Hand ${rec.hand} over`;
      case 'hand_start': return `Hand ${rec.hand}: ${who(rec.player)} to move`;
      case 'progress': return `${rec.removed} removed, ${rec.left} left`;
      case 'result':
        if (rec.won !== undefined) return rec.won ? 'Won! Every tile removed.' : `Lost: no move left (${rec.removed} removed)`;
        return `${who(rec.winner)} wins the game`;
      case 'turn': return `${who(rec.player)} to move`;
      case 'note': return rec.message;
      case 'reset': return 'Following afresh';
      case 'moved': return `Rematch: the game goes on at table ${rec.table_id}`;
      default: return null;
    }
  }
  function apply(rec, fresh) {
    if (rec.type === 'view') {
      if ((fresh && !stills) || filming) $('live-view').textContent = rec.steady ? 'steady' : 'moving';  // a photo's phone says 'photo N read'
      return;
    }
    if (fresh) {
      if (rec.table && window.dominoTable) window.dominoTable.setTable(rec.table);
      if (rec.type === 'photo' && rec.photo_id && window.dominoTable) window.dominoTable.showPhoto(rec.photo_id);
      if (rec.type === 'moved' && rec.table_id && window.dominoTable) window.dominoTable.moveTo(rec.table_id);
      if (rec.type === 'flag') show('live-flag', `Not accepted: ${rec.message}`);
      if (rec.type === 'flag_withdrawn') show('live-flag', '');
      if (rec.type === 'play') { show('live-flag', ''); show('live-question', ''); }
      if (rec.type === 'question') show('live-question', `Check: ${rec.message}`);
      if (rec.type === 'question' && rec.ask === 'player' && $('live-turn')) { $('live-turn').value = ''; $('live-turn').focus(); }
    }
    const text = line(rec);
    if (!text) return;
    const li = el('li', { class: 'live-' + rec.type, 'data-seq': rec.seq }, text);
    const log = $('live-log');
    log.prepend(li);
    while (log.childElementCount > 60) log.lastElementChild.remove();
  }
  async function poll() {
    let first = true;
    for (;;) {
      try {
        const data = await call('GET', `/api/tables/${tableId}/live/events?after=${last}&wait=${first ? 0 : 20}`);
        if (data.reset) { last = 0; }
        for (const rec of data.records) apply(rec, !first);
        last = data.last;
        if (first) card.dataset.live = 'ready';  // the feed is read: tests wait for this mark
        first = false;
        const turn = $('live-turn');  // who is to move, as the follower says
        if (turn && data.summary && document.activeElement !== turn) turn.value = Number.isInteger(data.summary.player) ? String(data.summary.player) : '';
        if (data.retry_ms) await new Promise((r) => setTimeout(r, data.retry_ms));
      } catch (e) {
        await new Promise((r) => setTimeout(r, 2000));  // server away: try again
      }
    }
  }

  // ---- filming: one frame at a time ----------------------------------------------------------
  function drawTracks(ans) {
    const svg = $('live-overlay');
    svg.setAttribute('viewBox', `0 0 ${ans.width} ${ans.height}`);
    svg.innerHTML = '';
    const w = Math.max(2, ans.width / 200);
    for (const t of ans.tracks) {
      const poly = document.createElementNS(SVG, 'polygon');
      poly.setAttribute('points', t.corners.map((c) => c.join(',')).join(' '));
      poly.setAttribute('fill', 'none');
      poly.setAttribute('stroke', COLOURS[t.status] || '#d33');
      poly.setAttribute('stroke-width', w);
      if (t.status === 'unsure') poly.setAttribute('stroke-dasharray', `${3 * w} ${2 * w}`);
      poly.setAttribute('class', 'track-' + t.status);
      svg.append(poly);
    }
  }
  function grab(video) {
    const s = Math.min(1, FRAME_SIDE / Math.max(video.videoWidth, video.videoHeight));
    const c = document.createElement('canvas');
    c.width = Math.round(video.videoWidth * s); c.height = Math.round(video.videoHeight * s);
    c.getContext('2d').drawImage(video, 0, 0, c.width, c.height);
    return new Promise((resolve) => c.toBlob(resolve, 'image/jpeg', 0.8));
  }
  async function film() {
    const video = $('live-feed');
    while (filming) {
      if (!video.videoWidth) { await new Promise((r) => setTimeout(r, 100)); continue; }
      const blob = await grab(video);
      const fd = new FormData();
      fd.append('frame', blob, 'frame.jpg'); fd.append('camera', camId);
      try {
        const ans = await call('POST', `/api/tables/${tableId}/live/frames`, fd);  // the next frame waits for this answer
        frames += 1;
        if (!filming) break;  // stopped while this frame was on its way
        $('live-view').textContent = ans.steady ? 'steady' : 'moving';
        drawTracks(ans);
        show('message', '');
      } catch (e) {
        show('message', e.message);
        await new Promise((r) => setTimeout(r, 1500));
      }
    }
  }
  async function start() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      show('message', 'Live reading needs the camera, which phones allow only on the secure (https) address of this page.');
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment', width: { ideal: 1280 } }, audio: false });
    } catch (e) { show('message', 'The camera could not be opened: ' + e.message); return; }
    $('live-feed').srcObject = stream;
    $('live-wrap').hidden = false; $('live-follow').hidden = true; $('live-stop').hidden = false;
    filming = true;
    film();
  }
  function stop() {
    filming = false;
    if (stream) for (const t of stream.getTracks()) t.stop();
    stream = null;
    $('live-wrap').hidden = true; $('live-follow').hidden = false; $('live-stop').hidden = true;
    $('live-view').textContent = 'camera off';
  }
  // ---- photo mode: one photo after each play, each taken as the table at rest ----------------
  async function snap() {
    const input = $('live-still-input');
    const f = input.files[0]; if (!f) return;
    if (filming) stop();  // the live camera or photos, one at a time
    $('live-view').textContent = 'reading the photo';
    // held upright and shrunk as the page's other photos are (table.js)
    const blob = window.dominoTable ? await window.dominoTable.photoBlob(f) : f;
    input.value = '';
    const fd = new FormData();
    fd.append('frame', blob, 'still.jpg'); fd.append('camera', camId); fd.append('still', '1');
    try {
      const ans = await call('POST', `/api/tables/${tableId}/live/frames`, fd);
      stills += 1;
      const seen = ans.records.some((r) => line(r));
      $('live-view').textContent = `photo ${stills} read` + (seen ? '' : ': no change seen');
      show('message', '');
    } catch (e) {
      $('live-view').textContent = 'photo not read';
      show('message', 'The photo was not read: ' + e.message);
    }
  }
  async function tap(body) {
    const key = Array.from(crypto.getRandomValues(new Uint8Array(16)), (x) => x.toString(16).padStart(2, '0')).join('');
    try { await call('POST', `/api/tables/${tableId}/live/tap`, body, key); show('message', ''); } catch (e) { show('message', e.message); }
  }
  if ($('live-follow')) $('live-follow').addEventListener('click', start);
  if ($('live-stop')) $('live-stop').addEventListener('click', stop);
  if ($('live-still-input')) $('live-still-input').addEventListener('change', snap);
  if ($('live-pass')) $('live-pass').addEventListener('click', () => tap({ kind: 'pass' }));
  if ($('live-done')) $('live-done').addEventListener('click', () => tap({ kind: 'done' }));
  if ($('live-turn')) $('live-turn').addEventListener('change', (ev) => tap({ kind: 'player', player: +ev.target.value }));
  let laptopOn = false;
  if ($('live-laptop')) $('live-laptop').addEventListener('click', async () => {
    try {
      const got = await call('POST', `/api/tables/${tableId}/live/laptop`, { on: !laptopOn });
      laptopOn = got.on;
      $('live-laptop').textContent = laptopOn ? 'Stop laptop camera' : 'Follow with laptop camera';
      show('message', got.error || '');
    } catch (e) { show('message', e.message); }
  });
  window.dominoLive = { frames: () => frames, stills: () => stills, last: () => last };
  poll();
})();
