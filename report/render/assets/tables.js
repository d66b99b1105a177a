// Sorts and filters the rows of every table.sortable in place: a click on
// a column heading (or Enter on it) sorts by that column, numbers as
// numbers and missing values last, again to reverse; the box above the
// table keeps the rows that contain every word typed into it.
(function () {
  function key(td) {
    var t = td.textContent.replace(/[,\s]/g, '');
    var n = parseFloat(t);
    return t === '' || t === '–' ? null : isFinite(n) ? n : t.toLowerCase();
  }
  function cmp(a, b) {
    if (a === null || b === null) { return a === b ? 0 : a === null ? 1 : -1; }
    if (typeof a !== typeof b) { return typeof a === 'number' ? -1 : 1; }
    return a < b ? -1 : a > b ? 1 : 0;
  }
  var tables = document.querySelectorAll('table.sortable');
  for (var i = 0; i < tables.length; i++) {
    (function (table) {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;
      var col = -1, dir = 1;
      function sortBy(c) {
        dir = c === col ? -dir : 1;
        col = c;
        var keyed = rows.map(function (r, k) { return [key(r.cells[c]), k, r]; });
        keyed.sort(function (a, b) {
          var d = cmp(a[0], b[0]);
          if (a[0] !== null && b[0] !== null) { d *= dir; }
          return d || a[1] - b[1];
        });
        for (var k = 0; k < keyed.length; k++) { body.appendChild(keyed[k][2]); }
        for (var h = 0; h < heads.length; h++) {
          heads[h].setAttribute('aria-sort', h === c ? (dir > 0 ? 'ascending' : 'descending') : 'none');
        }
      }
      for (var h = 0; h < heads.length; h++) {
        (function (c) {
          heads[c].tabIndex = 0;
          heads[c].title = 'Sort by this column';
          heads[c].addEventListener('click', function () { sortBy(c); });
          heads[c].addEventListener('keydown', function (e) { if (e.key === 'Enter') { sortBy(c); } });
        })(h);
      }
      var box = document.createElement('input');
      box.type = 'search';
      box.className = 'tfilter';
      box.placeholder = 'Filter ' + rows.length + ' rows';
      box.setAttribute('aria-label', 'Filter the rows of the table');
      var count = document.createElement('span');
      count.className = 'tcount';
      box.addEventListener('input', function () {
        var words = box.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
        for (var k = 0; k < rows.length; k++) {
          var text = rows[k].textContent.toLowerCase(), keep = true;
          for (var w = 0; w < words.length && keep; w++) { keep = text.indexOf(words[w]) >= 0; }
          rows[k].hidden = !keep;
          if (keep) { shown++; }
        }
        count.textContent = words.length ? shown + ' of ' + rows.length + ' rows' : '';
      });
      var wrap = table.parentNode;
      wrap.parentNode.insertBefore(box, wrap);
      wrap.parentNode.insertBefore(count, wrap);
    })(tables[i]);
  }
})();
