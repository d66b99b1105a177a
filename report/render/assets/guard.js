// Records every error the page raises, before anything else runs, so that
// an automated check (CheckInBrowser) can read them from the DOM.
(function () {
  var errs = [];
  window.__outlast = { errors: errs };
  var orig = console.error;
  console.error = function () {
    try { errs.push(Array.prototype.map.call(arguments, String).join(' ')); } catch (e) { errs.push('console.error'); }
    return orig.apply(console, arguments);
  };
  window.addEventListener('error', function (e) {
    var t = e.target;
    errs.push('error: ' + (e.message || (t && t.tagName ? 'failed to load ' + t.tagName : 'unknown')));
  }, true);
  window.addEventListener('unhandledrejection', function (e) { errs.push('unhandledrejection: ' + String(e.reason)); });
  document.addEventListener('securitypolicyviolation', function (e) {
    errs.push('CSP blocked ' + e.blockedURI + ' (' + e.violatedDirective + ')');
  });
})();
