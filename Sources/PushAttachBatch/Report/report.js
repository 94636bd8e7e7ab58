(function () {
  "use strict";
  var body = document.body;
  var items = JSON.parse(document.getElementById("entries").textContent);
  var defaultPer = Number(body.getAttribute("data-page-size")) || 200;
  var statuses = ["prepared", "rejected", "failed"];
  var sorts = ["index", "size", "time", "name"];
  var groupings = ["none", "status", "reason"];
  var sheet = document.getElementById("sheet");
  var search = document.getElementById("search");
  var perSelect = document.getElementById("per");
  var sortSelect = document.getElementById("sort");
  var groupSelect = document.getElementById("group");
  var foldBox = document.getElementById("fold");
  var groupsNav = document.getElementById("groups");
  var empty = document.getElementById("empty");
  var pagers = [document.getElementById("pager-top"), document.getElementById("pager-bottom")];
  var chips = document.querySelectorAll("#filters a[data-status]");
  var haystacks = null, names = null;
  var first = true;
  // The characters DisplayText escapes: controls, line separators, bidi and invisible ones.
  var hidden = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u200B-\u200D\u2060-\u2064\u206A-\u206F\uFEFF\u180E\uFFF9-\uFFFB]/g;

  function shown(text) {
    return String(text).replace(hidden, function (c) {
      if (c === "\n") return "\\n";
      if (c === "\r") return "\\r";
      if (c === "\t") return "\\t";
      var hex = c.charCodeAt(0).toString(16).toUpperCase();
      return "\\u{" + (hex.length < 2 ? "0" + hex : hex) + "}";
    });
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = shown(text);
    return node;
  }

  function readState() {
    var s = { status: "all", q: "", page: 1, per: defaultPer, sort: "index", group: "none", fold: true, key: null };
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var eq = part.indexOf("=");
      if (eq < 0) return;
      var key = part.slice(0, eq), value;
      try { value = decodeURIComponent(part.slice(eq + 1).replace(/\+/g, " ")); } catch (e) { return; }
      if (key === "status" && (value === "all" || statuses.indexOf(value) >= 0)) s.status = value;
      else if (key === "q") s.q = value;
      else if (key === "page") s.page = Math.max(1, parseInt(value, 10) || 1);
      else if (key === "per") s.per = value === "all" ? Infinity : Math.max(1, parseInt(value, 10) || defaultPer);
      else if (key === "sort" && sorts.indexOf(value) >= 0) s.sort = value;
      else if (key === "group" && groupings.indexOf(value) >= 0) s.group = value;
      else if (key === "fold") s.fold = value !== "0";
      else if (key === "key") s.key = value;
    });
    if (s.group === "none") s.key = null;
    return s;
  }

  function hashFor(s) {
    var parts = [];
    if (s.status !== "all") parts.push("status=" + s.status);
    if (s.q) parts.push("q=" + encodeURIComponent(s.q));
    if (s.sort !== "index") parts.push("sort=" + s.sort);
    if (s.group !== "none") parts.push("group=" + s.group);
    if (s.group !== "none" && s.key !== null) parts.push("key=" + encodeURIComponent(s.key));
    if (!s.fold) parts.push("fold=0");
    if (s.page > 1) parts.push("page=" + s.page);
    if (s.per !== defaultPer) parts.push("per=" + (s.per === Infinity ? "all" : s.per));
    return "#" + parts.join("&");
  }

  function withState(s, changes) {
    var copy = {};
    for (var k in s) copy[k] = s[k];
    for (var c in changes) copy[c] = changes[c];
    return copy;
  }

  function haystack(it) {
    return [it.input, it.id, it.status, it.reason, it.file, it.uti, it.format, it.category,
      it.error_code === null ? null : String(it.error_code)]
      .concat(it.warnings || [], it.transform || [])
      .filter(function (v) { return v !== null && v !== undefined; })
      .join("\n").toLowerCase();
  }

  // The group an item is shown in: its status, or its status and reason (its status, code and the
  // word for its refusal or failure, as the console's "top reasons" counts it; for a prepared
  // item, what was done).
  function groupOf(it, grouping) {
    if (grouping === "status") return it.status;
    if (it.status === "prepared") return "prepared" + (it.action ? " \u00B7 " + it.action : "");
    return it.reason_key || it.status;
  }

  // Items naming the same URL with the same outcome (the run downloaded it once) fold into one
  // card; a line that is not an item never folds.
  function foldKey(it) {
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(String(it.input))) return null;
    return it.status + "\n" + it.input + "\n" + ((it.status === "prepared" ? it.file : it.reason) || "");
  }

  function totalMs(it) {
    var t = it.timings || {};
    return (t.download_ms || 0) + (t.process_ms || 0) + (t.write_ms || 0);
  }

  function compare(s, ranks, groupKeys) {
    if (s.sort === "name" && !names) names = items.map(function (it) { return displayName(it.input).toLowerCase(); });
    return function (a, b) {
      if (ranks) {
        var ra = ranks.get(groupKeys[a]), rb = ranks.get(groupKeys[b]);
        if (ra !== rb) return ra - rb;
      }
      var x = items[a], y = items[b];
      if (s.sort === "size") {
        var bx = typeof x.bytes === "number" ? x.bytes : -1, by = typeof y.bytes === "number" ? y.bytes : -1;
        if (bx !== by) return by - bx;
      } else if (s.sort === "time") {
        var tx = totalMs(x), ty = totalMs(y);
        if (tx !== ty) return ty - tx;
      } else if (s.sort === "name" && names[a] !== names[b]) {
        return names[a] < names[b] ? -1 : 1;
      }
      return x.index - y.index;
    };
  }

  // What the state shows: the matching items (search, status, group key), counted per status
  // and per group; folded into cards; ordered by group, then the sort.
  function select(s) {
    var terms = s.q.toLowerCase().split(/\s+/).filter(Boolean);
    if (terms.length && !haystacks) haystacks = items.map(haystack);
    var counts = { all: 0, prepared: 0, rejected: 0, failed: 0 };
    var groupKeys = {}, groups = new Map(), list = [];
    outer: for (var i = 0; i < items.length; i++) {
      for (var t = 0; t < terms.length; t++) if (haystacks[i].indexOf(terms[t]) < 0) continue outer;
      counts.all++;
      counts[items[i].status]++;
      if (s.status !== "all" && items[i].status !== s.status) continue;
      if (s.group !== "none") {
        var g = groupOf(items[i], s.group);
        groupKeys[i] = g;
        groups.set(g, (groups.get(g) || 0) + 1);
        if (s.key !== null && g !== s.key) continue;
      }
      list.push(i);
    }
    var matching = list.length, folded = new Map(), cards = list;
    if (s.fold) {
      var firstOf = new Map();
      cards = [];
      list.forEach(function (i) {
        var key = foldKey(items[i]);
        if (key !== null && firstOf.has(key)) { folded.get(firstOf.get(key)).push(i); return; }
        if (key !== null) { firstOf.set(key, i); folded.set(i, []); }
        cards.push(i);
      });
    }
    var order = null;
    if (s.group !== "none") {
      var keys = Array.from(groups.keys()).sort(function (a, b) {
        var sa = statuses.indexOf(a.split(" ")[0]), sb = statuses.indexOf(b.split(" ")[0]);
        if (sa !== sb) return sa - sb;
        if (groups.get(a) !== groups.get(b)) return groups.get(b) - groups.get(a);
        return a < b ? -1 : a > b ? 1 : 0;
      });
      order = new Map(keys.map(function (k, n) { return [k, n]; }));
    }
    if (order || s.sort !== "index") cards = cards.slice().sort(compare(s, order, groupKeys));
    return { cards: cards, matching: matching, counts: counts, folded: folded, groups: groups, order: order, groupKeys: groupKeys };
  }

  // A path the manifest gives, relative to the container, as a link; null for anything
  // but a file in one of the container's folders.
  function href(relative) {
    if (typeof relative !== "string" || !/^(Images|Audio|Video|Thumbnails)\/[^\/]+$/.test(relative)) return null;
    var parts = relative.split("/");
    if (parts[1] === "." || parts[1] === "..") return null;
    return parts.map(encodeURIComponent).join("/");
  }

  function picture(it) {
    return href(it.thumbnail) || (it.status === "prepared" && it.category === "image" ? href(it.file) : null);
  }

  function displayName(input) {
    var path = String(input).replace(/[?#].*$/, "");
    var name = path.slice(path.lastIndexOf("/") + 1) || String(input);
    try { name = decodeURIComponent(name); } catch (e) { }
    return name;
  }

  function size(n) {
    if (n < 1000) return n + " B";
    var units = ["kB", "MB", "GB"], v = n / 1000, u = 0;
    while (v >= 1000 && u < units.length - 1) { v /= 1000; u++; }
    return (v < 10 ? v.toFixed(1) : String(Math.round(v))) + " " + units[u];
  }

  function pixels(w, h) { return w && h ? w + "\u00D7" + h : null; }
  function joined(parts) { return parts.filter(Boolean).join(" \u00B7 "); }

  // The first bytes of what arrived (hex in the manifest) as text, every byte that is not
  // printable ASCII written \xHH, and as hex.
  function firstBytes(hex) {
    if (typeof hex !== "string" || !/^([0-9a-f]{2})+$/i.test(hex)) return null;
    var text = "", pairs = [];
    for (var i = 0; i < hex.length; i += 2) {
      var pair = hex.slice(i, i + 2).toLowerCase(), byte = parseInt(pair, 16);
      pairs.push(pair);
      if (byte === 10) text += "\\n";
      else if (byte === 13) text += "\\r";
      else if (byte === 9) text += "\\t";
      else if (byte === 92) text += "\\\\";
      else if (byte >= 32 && byte < 127) text += String.fromCharCode(byte);
      else text += "\\x" + pair;
    }
    return { text: text, hex: pairs.join(" ") };
  }

  function copyButton(text) {
    var button = el("button", "copy", "copy");
    button.type = "button";
    button.title = "copy " + shown(text);
    button.addEventListener("click", function () {
      function done(ok) {
        button.textContent = ok ? "copied" : "press Ctrl+C";
        setTimeout(function () { button.textContent = "copy"; }, 1500);
      }
      function fallback() {
        var field = el("textarea", "copying");
        field.value = String(text);
        button.parentNode.appendChild(field);
        field.select();
        var ok = false;
        try { ok = document.execCommand("copy"); } catch (e) { }
        field.remove();
        done(ok);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(String(text)).then(function () { done(true); }, fallback);
      } else {
        fallback();
      }
    });
    return button;
  }

  function frameFor(it) {
    var link = it.status === "prepared" ? href(it.file) : null;
    var frame = el(link ? "a" : "div", "frame");
    if (link) {
      frame.href = link;
      frame.title = "open " + shown(it.file);
    }
    var src = picture(it);
    var media = it.status === "prepared" && (it.category === "audio" || it.category === "movie") ? link : null;
    if (media) {
      // Played inline, from the container: a link around controls would open the file instead.
      frame = el("div", "frame media");
      var player = document.createElement(it.category === "audio" ? "audio" : "video");
      player.controls = true;
      player.preload = it.category === "audio" ? "none" : "metadata";
      player.src = media;
      player.title = shown(it.file);
      frame.appendChild(player);
    } else if (src) {
      var img = document.createElement("img");
      img.loading = "lazy";
      img.decoding = "async";
      img.alt = "";
      img.addEventListener("error", function () {
        frame.replaceChildren(el("p", "note", "image not found: " + decodeURIComponent(src)));
      });
      img.src = src;
      frame.appendChild(img);
    } else if (it.status !== "prepared") {
      frame.className += " why";
      frame.appendChild(el("p", "reason", it.reason || it.status));
    } else {
      frame.appendChild(el("p", "note", joined([it.category, it.format]) || "no preview"));
    }
    return { frame: frame, picture: src };
  }

  // The card's facts: sizes, type hint, code, id, what arrived, the input (whole on hover,
  // with a copy button) and the other items folded into it.
  function facts(it, duplicates, arrived) {
    var list = el("dl", "facts");
    function fact(term, value, className) {
      if (!value) return null;
      list.appendChild(el("dt", null, term));
      var dd = el("dd", className || null, value);
      list.appendChild(dd);
      return dd;
    }
    var download = it.status !== "prepared" && it.bytes !== null ? size(it.bytes) + " downloaded" : null;
    fact("source", joined([pixels(it.source_width, it.source_height), download]));
    if (it.status === "prepared") {
      fact("output", joined([pixels(it.width, it.height), it.bytes !== null ? size(it.bytes) : null,
        it.frames > 1 ? it.frames + " frames" : null]));
    }
    // A prepared file's UTI is the type hint to pass; a refused one's is only what the bytes are.
    fact(it.status === "prepared" ? "type hint" : "detected type", it.uti, "uti");
    if (it.error_code !== null) fact("UNError", String(it.error_code));
    if (it.refusal) fact("refused", it.refusal);
    if (it.failure) fact("failed", it.failure);
    if (it.id !== null) fact("id", it.id);
    if (arrived) fact("arrived", it.format || "no media type recognised", "sniffed");
    list.appendChild(el("dt", null, "input"));
    var input = el("dd", "input");
    var url = el("span", "url", it.input + (it.line > 0 ? " (line " + it.line + ")" : ""));
    url.title = shown(it.input);
    url.tabIndex = 0;
    input.appendChild(url);
    input.appendChild(copyButton(it.input));
    list.appendChild(input);
    if (duplicates.length) {
      fact("also", duplicates.map(function (d) {
        var other = items[d];
        return "#" + other.index + (other.line > 0 ? " line " + other.line : "") + (other.id !== null ? " id " + other.id : "");
      }).join(", "), "also");
    }
    return list;
  }

  function card(it, duplicates) {
    var node = el("article", "card " + it.status);
    node.setAttribute("data-index", it.index);
    node.setAttribute("data-status", it.status);
    if (duplicates.length) node.setAttribute("data-count", String(duplicates.length + 1));
    var shownFrame = frameFor(it);
    node.appendChild(shownFrame.frame);

    var text = el("div", "text");
    var head = el("p", "head");
    head.appendChild(el("span", "badge", it.status));
    head.appendChild(el("span", "index", "#" + it.index));
    if (duplicates.length) {
      var count = el("span", "count", "\u00D7" + (duplicates.length + 1));
      count.title = (duplicates.length + 1) + " items name this URL; downloaded once";
      head.appendChild(count);
    }
    head.appendChild(el("span", "kind", joined([it.format, it.category])));
    text.appendChild(head);
    var name = el("h2", "name", displayName(it.input));
    name.title = shown(it.input);
    text.appendChild(name);

    var arrived = it.status !== "prepared" ? firstBytes(it.first_bytes) : null;
    text.appendChild(facts(it, duplicates, arrived));

    if (arrived) {
      var bytes = el("pre", "bytes");
      bytes.title = "the first " + (it.first_bytes.length / 2) + " bytes that arrived";
      bytes.appendChild(el("span", "ascii", arrived.text));
      bytes.appendChild(document.createTextNode("\n"));
      bytes.appendChild(el("span", "hex", arrived.hex));
      text.appendChild(bytes);
    }
    if (it.status !== "prepared" && shownFrame.picture && it.reason) text.appendChild(el("p", "reason", it.reason));
    if (it.transform && it.transform.length) {
      var steps = el("ol", "steps");
      it.transform.forEach(function (step) { steps.appendChild(el("li", null, step)); });
      text.appendChild(steps);
    }
    if (it.warnings && it.warnings.length) {
      var warnings = el("ul", "warnings");
      it.warnings.forEach(function (w) { warnings.appendChild(el("li", null, w)); });
      text.appendChild(warnings);
    }
    node.appendChild(text);
    return node;
  }

  function heading(s, key, count) {
    var node = el("h3", "group");
    node.setAttribute("data-group", key);
    node.setAttribute("data-count", String(count));
    node.appendChild(el("span", "label", key));
    node.appendChild(el("span", "n", count + (count === 1 ? " item" : " items")));
    var only = el("a", null, s.key === null ? "only these" : "all groups");
    only.href = hashFor(withState(s, { key: s.key === null ? key : null, page: 1 }));
    node.appendChild(only);
    return node;
  }

  function groupLinks(s, picked) {
    groupsNav.replaceChildren();
    groupsNav.hidden = s.group === "none";
    if (s.group === "none") return;
    var keys = Array.from(picked.order.keys());
    keys.forEach(function (key) {
      var a = el("a", null, key);
      a.setAttribute("data-group", key);
      a.appendChild(el("span", "n", String(picked.groups.get(key))));
      if (s.key === key) a.setAttribute("aria-current", "true");
      a.href = hashFor(withState(s, { key: s.key === key ? null : key, page: 1 }));
      groupsNav.appendChild(a);
    });
  }

  function pager(node, s, pages, total, from, to) {
    node.replaceChildren();
    function link(label, page, current) {
      var a = el("a", null, label);
      if (current) a.setAttribute("aria-current", "page");
      if (page < 1 || page > pages || current) {
        if (!current) a.setAttribute("aria-disabled", "true");
      } else {
        a.href = hashFor(withState(s, { page: page }));
      }
      node.appendChild(a);
    }
    link("\u2039 prev", s.page - 1, false);
    var shownPages = [1, pages];
    for (var p = s.page - 2; p <= s.page + 2; p++) if (p >= 1 && p <= pages) shownPages.push(p);
    shownPages = shownPages.filter(function (p, i, all) { return all.indexOf(p) === i; })
      .sort(function (a, b) { return a - b; });
    shownPages.forEach(function (p, i) {
      if (i > 0 && p > shownPages[i - 1] + 1) node.appendChild(el("span", "gap", "\u2026"));
      link(String(p), p, p === s.page);
    });
    link("next \u203A", s.page + 1, false);
    node.appendChild(el("span", "where", total
      ? "cards " + (from + 1) + "\u2013" + to + " of " + total
      : "no items"));
  }

  function showControls(s) {
    if (document.activeElement !== search) search.value = s.q;
    var perValue = s.per === Infinity ? "all" : String(s.per);
    if (!perSelect.querySelector('option[value="' + perValue + '"]')) {
      perSelect.appendChild(el("option", null, perValue + " per page")).value = perValue;
    }
    perSelect.value = perValue;
    sortSelect.value = s.sort;
    groupSelect.value = s.group;
    foldBox.checked = s.fold;
  }

  function render() {
    var started = performance.now();
    var s = readState();
    showControls(s);
    var picked = select(s);
    var cards = picked.cards;
    var per = s.per === Infinity ? Math.max(1, cards.length) : s.per;
    var pages = Math.max(1, Math.ceil(cards.length / per));
    if (s.page > pages) s.page = pages;
    var from = (s.page - 1) * per, to = Math.min(cards.length, from + per);
    var fragment = document.createDocumentFragment();
    var previous = null;
    for (var k = from; k < to; k++) {
      var i = cards[k];
      if (s.group !== "none" && picked.groupKeys[i] !== previous) {
        previous = picked.groupKeys[i];
        fragment.appendChild(heading(s, previous, picked.groups.get(previous)));
      }
      fragment.appendChild(card(items[i], picked.folded.get(i) || []));
    }
    sheet.replaceChildren(fragment);
    empty.hidden = cards.length > 0;
    chips.forEach(function (chip) {
      var status = chip.getAttribute("data-status");
      chip.setAttribute("aria-current", status === s.status ? "true" : "false");
      chip.querySelector(".n").textContent = String(picked.counts[status]);
      chip.href = hashFor(withState(s, { status: status, page: 1, key: null }));
    });
    groupLinks(s, picked);
    pagers.forEach(function (node) { pager(node, s, pages, cards.length, from, to); });
    body.setAttribute("data-total", String(items.length));
    body.setAttribute("data-status", s.status);
    body.setAttribute("data-sort", s.sort);
    body.setAttribute("data-group", s.group);
    body.setAttribute("data-matching", String(picked.matching));
    body.setAttribute("data-cards", String(cards.length));
    body.setAttribute("data-shown", String(to - from));
    body.setAttribute("data-page", String(s.page));
    body.setAttribute("data-pages", String(pages));
    void body.offsetHeight;  // lay the page out: the time below includes it
    var now = performance.now();
    if (first) body.setAttribute("data-rendered-ms", String(Math.round(now)));
    body.setAttribute("data-render-ms", String(Math.round(now - started)));
    first = false;
  }

  function change(changes) {
    location.hash = hashFor(withState(readState(), changes));
  }

  var typing = null;
  search.addEventListener("input", function () {
    clearTimeout(typing);
    typing = setTimeout(function () {
      history.replaceState(null, "", hashFor(withState(readState(), { q: search.value, page: 1 })));
      render();
    }, 120);
  });
  perSelect.addEventListener("change", function () {
    change({ per: perSelect.value === "all" ? Infinity : Number(perSelect.value), page: 1 });
  });
  sortSelect.addEventListener("change", function () { change({ sort: sortSelect.value, page: 1 }); });
  groupSelect.addEventListener("change", function () { change({ group: groupSelect.value, key: null, page: 1 }); });
  foldBox.addEventListener("change", function () { change({ fold: foldBox.checked, page: 1 }); });
  document.addEventListener("keydown", function (event) {
    if (event.key === "/" && document.activeElement !== search) {
      event.preventDefault();
      search.focus();
    }
  });
  window.addEventListener("hashchange", function () { render(); window.scrollTo(0, 0); });
  render();
})();
