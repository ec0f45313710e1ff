"""The queue's keyboard: the one script of the review app (served as ``/review.js``, allowed by
the Content-Security-Policy's ``script-src 'self'``; no framework, nothing to build).

Each key submits one of the page's own forms or follows one of its links, so every action
works without the script too: ``a`` duplicate, ``n`` not a duplicate, ``c`` make the member
the canonical, ``u`` undo, ``j`` / → next, ``k`` / ← previous. A key is ignored while the
focus is in a text field or a modifier is held, and after the first decision until the next
page has loaded (a key held down decides one pair, not several).
"""

from __future__ import annotations

KEYS_SCRIPT = """(function () {
  "use strict";
  var forms = { a: "accept", n: "reject", c: "canonical", u: "undo" };
  var links = { j: "next", ArrowRight: "next", k: "prev", ArrowLeft: "prev" };
  var busy = false;
  document.addEventListener("keydown", function (event) {
    if (busy || event.ctrlKey || event.metaKey || event.altKey) { return; }
    var target = event.target;
    if (target && (target.isContentEditable ||
                   /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) { return; }
    var form = forms[event.key] && document.getElementById(forms[event.key]);
    var link = links[event.key] && document.getElementById(links[event.key]);
    if (form) {
      busy = true;
      event.preventDefault();
      if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); }
    } else if (link) {
      busy = true;
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
  window.addEventListener("pageshow", function () { busy = false; });
})();
"""
