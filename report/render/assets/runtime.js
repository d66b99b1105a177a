// Initialises every chart from its JSON option and records a self-check in
// document.body.dataset: charts found, initialised and drawn (non-empty
// canvas), resource requests, captured errors and the time at which every
// chart had been drawn (setOption draws at once: animation is off).
// Charts are drawn in document order a few at a time, yielding to the
// browser between batches, so that the top of a long page shows at once.
(function () {
  var state = window.__outlast || { errors: [] };
  var errs = state.errors;
  var opts = document.querySelectorAll('script.chart-option');
  var charts = [];
  function esc(s) {
    return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }
  // Point tooltip for scatter plots: series, optional label, coordinates.
  function pointTip(p) {
    var v = p.value || [];
    var s = p.marker + esc(p.seriesName) + '<br>';
    if (v.length > 2) { s += '<b>' + esc(v[2]) + '</b><br>'; }
    return s + 'x = ' + esc(v[0]) + ', y = ' + esc(v[1]);
  }
  var dpr = Math.max(2, window.devicePixelRatio || 1); // sharp when printed
  function draw(el) {
    try {
      if (typeof echarts === 'undefined') { throw new Error('echarts not loaded'); }
      var opt = JSON.parse(el.textContent);
      if (el.getAttribute('data-tooltip') === 'xy') { opt.tooltip.formatter = pointTip; }
      var chart = echarts.init(document.getElementById(el.getAttribute('data-chart')), null,
        { renderer: 'canvas', devicePixelRatio: dpr });
      chart.setOption(opt);
      charts.push(chart);
    } catch (e) {
      errs.push('chart ' + el.getAttribute('data-chart') + ': ' + e);
    }
  }
  function resize() { for (var i = 0; i < charts.length; i++) { charts[i].resize(); } }
  window.addEventListener('resize', resize);
  window.addEventListener('beforeprint', resize);
  window.addEventListener('afterprint', resize);
  function inked(chart) {
    var c = chart.getDom().querySelector('canvas');
    if (!c || c.width === 0 || c.height === 0) { return false; }
    var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (var k = 3; k < d.length; k += 4) { if (d[k] !== 0) { return true; } }
    return false;
  }
  function check(ready) {
    var drawn = 0;
    for (var i = 0; i < charts.length; i++) {
      try { if (inked(charts[i])) { drawn++; } } catch (e) { errs.push('check: ' + e); }
    }
    var b = document.body.dataset;
    b.chartsTotal = String(opts.length);
    b.chartsInit = String(charts.length);
    b.chartsDrawn = String(drawn);
    b.requests = String(performance.getEntriesByType('resource').length);
    b.readyMs = String(ready);
    b.errors = JSON.stringify(errs);
    b.checkDone = '1';
  }
  var next = 0;
  function batch() {
    var until = performance.now() + 40;
    while (next < opts.length && performance.now() < until) { draw(opts[next++]); }
    if (next < opts.length) { setTimeout(batch, 0); return; }
    var ready = Math.round(performance.now());
    setTimeout(function () { check(ready); }, 300);
  }
  batch();
})();
