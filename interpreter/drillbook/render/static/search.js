/* drillbook review site: search over sections, rules, labels (every language) and cells.
   Reads window.DRILLBOOK_SEARCH (search-index.js, written with the site); no network. */
(function () {
  "use strict";
  var MAX = 40;

  function norm(text) {
    return String(text).toLowerCase().replace(/ё/g, "е").trim();
  }

  function matches(entry, words) {
    for (var i = 0; i < words.length; i++) {
      if (entry.w.indexOf(words[i]) < 0) { return false; }
    }
    return true;
  }

  function score(entry, query) {
    var title = norm(entry.t);
    if (title === query) { return 0; }
    if (title.indexOf(query) === 0) { return 1; }
    if (entry.w.indexOf(query) >= 0) { return 2; }
    return 3;
  }

  function item(entry) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = entry.h;
    a.className = "result result-" + entry.k;
    var kind = document.createElement("span");
    kind.className = "kind";
    kind.textContent = entry.g;
    var title = document.createElement("span");
    title.className = "title";
    title.textContent = entry.t;
    a.appendChild(kind);
    a.appendChild(title);
    if (entry.s) {
      var where = document.createElement("span");
      where.className = "where";
      where.textContent = "§" + entry.s;
      a.appendChild(where);
    }
    li.appendChild(a);
    return li;
  }

  function start() {
    var form = document.getElementById("search");
    var index = window.DRILLBOOK_SEARCH;
    if (!form || !index || !index.entries) { return; }
    var input = document.getElementById("search-input");
    var list = document.getElementById("search-results");
    var entries = index.entries;
    form.hidden = false;

    function run() {
      var query = norm(input.value);
      list.textContent = "";
      if (!query) { return; }
      var words = query.split(/\s+/);
      var found = [];
      for (var i = 0; i < entries.length; i++) {
        if (matches(entries[i], words)) { found.push([score(entries[i], query), i]); }
      }
      found.sort(function (x, y) { return x[0] - y[0] || x[1] - y[1]; });
      var count = document.createElement("li");
      count.className = "count";
      count.textContent = (list.dataset.found || "{n}").replace("{n}", found.length) +
        (found.length > MAX ? "; " + (list.dataset.shown || "{n}").replace("{n}", MAX) : "");
      list.appendChild(count);
      for (var j = 0; j < found.length && j < MAX; j++) {
        list.appendChild(item(entries[found[j][1]]));
      }
    }

    input.addEventListener("input", run);
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var first = list.querySelector("a");
      if (first) { window.location.href = first.href; }
    });
    input.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { input.value = ""; run(); }
      if (event.key === "ArrowDown") {
        var first = list.querySelector("a");
        if (first) { event.preventDefault(); first.focus(); }
      }
    });
    list.addEventListener("keydown", function (event) {       // up and down the results
      var links = Array.prototype.slice.call(list.querySelectorAll("a"));
      var at = links.indexOf(document.activeElement);
      if (at < 0) { return; }
      if (event.key === "ArrowDown" && at + 1 < links.length) {
        event.preventDefault();
        links[at + 1].focus();
      } else if (event.key === "ArrowUp") {
        event.preventDefault();
        (at > 0 ? links[at - 1] : input).focus();
      } else if (event.key === "Escape") {
        input.focus();
        input.value = "";
        run();
      }
    });
    list.addEventListener("click", function (event) {
      if (event.target.closest && event.target.closest("a")) {
        window.setTimeout(function () { list.textContent = ""; }, 0);
      }
    });
    var q = new URLSearchParams(window.location.search).get("q");
    if (q) { input.value = q; run(); }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
