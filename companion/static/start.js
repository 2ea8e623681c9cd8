// Start form: show the sets, variants, player count and target that fit the chosen game.
(function () {
  const game = document.getElementById('game'), set = document.getElementById('max_pip');
  const variantRow = document.getElementById('variant-row'), targetRow = document.getElementById('target-row');
  const target = document.getElementById('target'), players = document.getElementById('players');
  const help = document.getElementById('players-help'), playersRow = document.getElementById('players-row');
  let keepTarget = target.dataset.kept === '1';  // a refused form keeps the target typed
  function update() {
    const o = game.selectedOptions[0], sets = o.dataset.sets.split(',');
    for (const opt of set.options) opt.hidden = opt.disabled = !sets.includes(opt.value);
    if (!sets.includes(set.value)) set.value = sets[0];
    variantRow.hidden = !o.dataset.variants;
    const scored = o.dataset.scored === '1';
    targetRow.hidden = !scored;
    if (scored && !keepTarget) target.value = (TARGETS[game.value] || {})[set.value] || o.dataset.target;
    keepTarget = false;
    const min = +o.dataset.min, max = +o.dataset.max;
    playersRow.hidden = max === 1;
    const setRow = document.getElementById('set-row'); if (setRow) setRow.hidden = sets.length === 1;
    help.textContent = min === max ? `(${min}, one name a line)` : `(${min} to ${max}, one name a line)`;
    if (max === 1) players.value = '';
  }
  game.addEventListener('change', update); set.addEventListener('change', update); update();
})();
