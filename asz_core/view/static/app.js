// asz view: draws the asz.view document (seed 004). Plain browser JavaScript, no network beyond this server.
// Every transcript text goes into the page as a text node (textContent), never as markup.
'use strict';
(function () {
  // ------------------------------------------------------------------ address, hide and fetching

  // The hide parameters of this page's own address (any key whose letters spell "hide", and any piece that does
  // not decode, so the server can refuse it). They are passed on to every API call and kept on every link.
  function hideQuery() {
    const q = location.search.replace(/^\?/, '');
    if (!q) return '';
    return q.split('&').filter(function (piece) {
      const key = piece.split('=')[0];
      let d;
      try { d = decodeURIComponent(key.replace(/\+/g, ' ')); } catch (e) { return true; }
      return d.replace(/[^A-Za-z]/g, '').toLowerCase() === 'hide';
    }).join('&');
  }
  const HQ = hideQuery();
  // A server run with --token is read under /t/TOKEN/ (asz_core/view/access.py): the page's own address begins so,
  // and every address the page asks for or links to is written under the same prefix, so each carries the token to
  // this server's port alone (no cookie, which a browser would send to every port of the host; review38 R1).
  const BASE = (/^\/t\/[^/]+(?=\/|$)/.exec(location.pathname) || [''])[0];
  function withHide(path, extra) {
    const parts = [];
    if (extra) parts.push(extra);
    if (HQ) parts.push(HQ);
    const at = path.charAt(0) === '/' ? BASE + path : path;
    return parts.length ? at + '?' + parts.join('&') : at;
  }
  function enc(s) { return encodeURIComponent(s); }
  // ``plain``: asked with no header of its own, so the page's shell can have asked for it ahead (a conversation's
  // document and headings: <link rel="preload"> in the page's head, asz_core/view/page.py), which this fetch then takes.
  function api(path, extra, plain) {
    return fetch(withHide(path, extra), plain ? undefined : { headers: { accept: 'application/json' } }).then(function (r) {
      return r.text().then(function (t) {
        let body = null;
        try { body = t ? JSON.parse(t) : null; } catch (e) { body = null; }
        if (!r.ok) return { ok: false, status: r.status, error: (body && body.error) || t || r.statusText, body: body, retry: r.headers.get('retry-after') };
        return { ok: true, status: r.status, data: body, etag: r.headers.get('etag') };
      });
    }, function (err) { return { ok: false, status: 0, error: String(err) }; });
  }

  // ------------------------------------------------------------------ elements

  // Transcript text never steers or hides from the reader (trial 3, F4/F19): C0 controls but tab and newline, DEL, C1
  // and the bidi overrides/isolates are written as the terminal's escapes (asz_core/reading/termtext.py: \x1b, \x9b,
  // \u202e), CR too unless keepCr (white space in a body). Every text node h() and add() make goes through it, and
  // so does Markdown before it is parsed. jsonText writes them as JSON escapes (\u0085), the same value.
  // Terminal formatting (a whole CSI sequence: colours, bold, modes, \x1b[38;2;153;153;153m) is removed first, as
  // termtext.plain removes it; an OSC, a lone ESC and U+009B still show as escapes.
  const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
  const CSI = /\x1b\[[0-?]*[ -\/]*[@-~]/g;
  function hex(n, w) { return n.toString(16).padStart(w, '0'); }
  function visibleText(t, keepCr) {
    return String(t).replace(CSI, '').replace(UNSAFE, function (c) {
      const n = c.charCodeAt(0);
      return keepCr && n === 13 ? c : n < 0x100 ? '\\x' + hex(n, 2) : '\\u' + hex(n, 4);
    });
  }
  function jsonText(v, indent) { return JSON.stringify(v, null, indent).replace(UNSAFE, function (c) { return '\\u' + hex(c.charCodeAt(0), 4); }); }
  // a title from a transcript (trial 3, F4): isolated in a <bdi> so that its own right-to-left text orders nothing
  // around it (escaped as every text node is); one that begins with ! (Claude Code's command typed in bash mode,
  // '! uv run ty check') drawn as code, as the conversation draws that command, never read as asz's ! mark (trial 30b
  // F5; rate_words.listed_title, the CLI's backticks)
  function titleText(t) {
    return h('bdi', null, typeof t === 'string' && t.charAt(0) === '!' ? h('code', { class: 'command-title', title: WORDS.command_title }, t) : t);
  }
  // the tab's title holds no markup: controls and bidi overrides written as escapes there, as the terminal shows them
  function tabTitle(t) { return visibleText(t, false); }

  function h(tag, props) {
    const e = document.createElement(tag);
    if (props) {
      for (const k of Object.keys(props)) {
        const v = props[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'onclick') e.addEventListener('click', v);
        else if (k === 'text') e.textContent = visibleText(v, true);
        else e.setAttribute(k, v);
      }
    }
    for (let i = 2; i < arguments.length; i++) add(e, arguments[i]);
    return e;
  }
  function add(e, c) {
    if (c === null || c === undefined || c === false) return;
    if (Array.isArray(c)) { c.forEach(function (x) { add(e, x); }); return; }
    e.append(c instanceof Node ? c : document.createTextNode(visibleText(c, true)));  // every text node: escapes
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

  // ------------------------------------------------------------------ status messages

  // What changed without the reader moving (trial 28b, F4, WCAG 4.1.3): a search's count, the list's count after a
  // filter or a sort, "Updated to round N", what the server is still reading, an error; said in the shell's live
  // regions, #say (role=status, polite) and #alarm (role=alert). Emptied first, so the same words said again are read.
  function say(text, urgent) {
    const r = document.getElementById(urgent ? 'alarm' : 'say');
    if (!r) return;
    r.textContent = '';
    clearTimeout(r._said);
    r._said = setTimeout(function () { r.textContent = visibleText(text, false); }, 60);
  }

  // ------------------------------------------------------------------ a server that stopped answering

  // The list's and the document's polls say here how the server answered (trial 40c F3: after a SIGTERM both tabs
  // showed what they held with no word, and after a restart with a new token each poll's 401 was said nowhere). What is
  // drawn stays; a banner over it (#away, between the header and the page) says since when the server does not answer,
  // or that its token changed, and how old what is shown is; the first poll answered takes it away. ``status``: the
  // poll's HTTP status, 0 when no answer came (a network error).
  let LAST_ANSWER = Date.now(), AWAY_SINCE = 0;
  function clock(ms) { const d = new Date(ms); return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + ' ' + tzShort(d); }
  function awayWords(status) {
    const asOf = 'what you see is as of ' + clock(LAST_ANSWER) + '.';
    if (status !== 401) return 'The server at ' + location.host + ' is not answering since ' + clock(AWAY_SINCE) + '; ' + asOf;
    return (BASE ? 'This server\'s token changed (restarted?): open the address it printed'
      : 'This server now needs its token (restarted with --token?): open the address it printed') + '; ' + asOf;
  }
  function polled(status) {
    const shown = document.getElementById('away');
    if (status !== 0 && status !== 401) {  // answered: any other status is the server's own answer, said where asked
      LAST_ANSWER = Date.now(); AWAY_SINCE = 0;
      if (shown) { shown.remove(); say('The server answers again.'); }
      return;
    }
    if (!AWAY_SINCE) AWAY_SINCE = Date.now();
    const words = awayWords(status);
    if (shown && shown.textContent === words) return;
    const box = h('div', { class: 'box error small', id: 'away' }, words);
    if (shown) shown.replaceWith(box); else document.body.insertBefore(box, document.getElementById('app'));
    say(words, true);
  }
  // The status a list poll's answers (the rows', the status') say together: no answer, else a 401, else the first's.
  function pollStatus(answers) {
    const codes = answers.map(function (r) { return r.status; });
    return codes.indexOf(0) >= 0 ? 0 : codes.indexOf(401) >= 0 ? 401 : codes[0];
  }

  // ------------------------------------------------------------------ keyboard focus and scroll kept across a redraw

  // A redraw (a new round landing while the page is open, a list row changing, a sort) replaces elements: the one that
  // had keyboard focus was removed, focus fell to <body> and the list jumped to its top (trial 28b, F1). The focused
  // element is found again by a stable key: its nearest holder's data-id (a list row's conversation, a step), data-talk,
  // data-tab, data-view, data-sort or id, and its place among the holder's elements of its tag.
  const FOCUS_KEYS = ['data-id', 'data-talk', 'data-tab', 'data-view', 'data-sort', 'id'];
  function focusKey() {
    const a = document.activeElement;
    if (!a || a === document.body || !app.contains(a) || a === app) return null;
    for (let x = a; x && x !== app; x = x.parentElement) {
      const attr = FOCUS_KEYS.find(function (k) { return x.hasAttribute(k); });
      if (!attr) continue;
      return { sel: '[' + attr + '="' + cssEscape(x.getAttribute(attr)) + '"]', tag: a.tagName, el: a,
        n: x === a ? -1 : Array.prototype.indexOf.call(x.querySelectorAll(a.tagName), a) };
    }
    return null;
  }
  // The element a focusKey names ({sel, tag, n}) as the page is now drawn, or null when its holder is not drawn (yet).
  function keyed(k) {
    const holder = app.querySelector(k.sel);
    return !holder ? null : k.n < 0 ? holder : holder.querySelectorAll(k.tag)[k.n] || null;
  }
  function restoreFocus(k) {
    if (!k || (k.el.isConnected && document.activeElement === k.el)) return;
    const el = keyed(k);
    if (el) el.focus({ preventScroll: true });
  }
  // Back to the list (trial 28b, F5): the list is drawn after its answers come, so the browser's own restoring found an
  // empty page and put the reader at its top with focus on <body>. Leaving the list keeps where it was scrolled and
  // which element had focus (focusKey) in sessionStorage; coming back to the same address (back or forward) puts both
  // back once the rows (and a search's hits) are drawn.
  const PLACE_KEY = 'asz-view-place';
  let PLACE = null;
  function savePlace() {
    const k = focusKey();
    try {
      sessionStorage.setItem(PLACE_KEY, JSON.stringify({ href: location.href, x: window.scrollX, y: window.scrollY,
        key: k ? { sel: k.sel, tag: k.tag, n: k.n } : null }));
    } catch (e) { /* no storage: the list opens at its top */ }
  }
  function takePlace() {
    try {
      const nav = performance.getEntriesByType('navigation')[0];
      const p = JSON.parse(sessionStorage.getItem(PLACE_KEY) || 'null');
      if (p && p.href === location.href && nav && nav.type === 'back_forward') PLACE = p;
    } catch (e) { PLACE = null; }
  }
  // The saved place put back once the element it names is drawn: the list's rows, then a search's hits (``last``
  // false: a search follows, which may draw it). The last draw puts the scroll back even when that element is gone
  // (the row left the list), and forgets the place: a later search never moves the window to it (review C 28).
  function restorePlace(last) {
    if (!PLACE) return;
    if (PLACE.key) {
      if (!app.querySelector(PLACE.key.sel) && !last) return;
      const el = keyed(PLACE.key);
      if (el) el.focus({ preventScroll: true });
    }
    window.scrollTo(PLACE.x, PLACE.y);
    PLACE = null;
  }
  // A tab strip as the tabs pattern has it (trial 28b, F10): one Tab stop, the selected tab (roving tabindex); the
  // arrow keys, Home and End move to another tab and select it; each tab controls the one panel, which is labelled
  // by the selected tab.
  function selectTab(bar, panel, isOn) {
    bar.querySelectorAll('[role=tab]').forEach(function (b) {
      const on = isOn(b);
      b.setAttribute('aria-selected', on ? 'true' : 'false');
      b.setAttribute('tabindex', on ? '0' : '-1');
      if (on && panel) panel.setAttribute('aria-labelledby', b.id);
    });
  }
  function arrowTabs(bar) {
    bar.addEventListener('keydown', function (ev) {
      const tabs = Array.from(bar.querySelectorAll('[role=tab]')), i = tabs.indexOf(document.activeElement);
      const j = i < 0 ? undefined : ({ ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 })[ev.key];
      if (j === undefined) return;
      ev.preventDefault();
      const t = tabs[(j + tabs.length) % tabs.length];
      t.click();
      t.focus();
    });
  }
  // Runs ``draw`` (a function redrawing part of the page), then gives focus back to the element that had it (or its
  // new copy) and puts the window back where it was scrolled. A place the browser could not give back is remembered:
  // a row above drawn shorter for one poll ("counting…" while the server counts it again) ends the page higher, and a
  // window near its end is clamped there; SHORT holds the pixels the window was left above the reader's place, and the
  // next redraw puts it back once the page is long enough again (before, the clamped place was kept: the window stayed
  // 19-20 px off after the row came back, session 39). The browser's scroll anchoring (the status line drawn above)
  // moves the window with what it shows, so the pixels still count; the reader scrolling or pressing a key forgets them.
  // An open conversation's redraw (a round landing: a subagent's talk placed under its Task step, a fold of tool calls
  // grown or split, a step given its result) also keeps what the reader reads where it was in the window: the element
  // at the window's centre (placeKey), not scrollY (trial 42c F4: the page drew 168 px shorter above it and scrollY
  // stayed, so another step came under the reader's eyes). An anchor the window could not be put back to (the page
  // ended higher) is HELD and used again at the next redraw, until the reader scrolls or presses a key.
  let SHORT = 0, HELD = null;
  ['wheel', 'touchstart', 'keydown', 'mousedown'].forEach(function (t) {
    window.addEventListener(t, function () { SHORT = 0; HELD = null; }, { capture: true, passive: true });
  });
  // The element at the centre of the window, named as focusKey names one (its nearest holder's key, which of the
  // elements so keyed it is, its place among the holder's elements of its tag) with its text's first 200 characters
  // and its and its holder's top in the window (px); null when the centre is outside the keyed part of the page.
  function placeKey() {
    const e = document.elementFromPoint(window.innerWidth / 2, window.innerHeight / 2);
    if (!e || !app.contains(e)) return null;
    for (let x = e; x && x !== app; x = x.parentElement) {
      const attr = FOCUS_KEYS.find(function (k) { return x.hasAttribute(k); });
      if (!attr) continue;
      const sel = '[' + attr + '="' + cssEscape(x.getAttribute(attr)) + '"]';
      return { sel: sel, i: Array.prototype.indexOf.call(app.querySelectorAll(sel), x), tag: e.tagName,
        n: x === e ? -1 : Array.prototype.indexOf.call(x.querySelectorAll(e.tagName), e), text: e.textContent.slice(0, 200),
        top: e.getBoundingClientRect().top, htop: x.getBoundingClientRect().top };
    }
    return null;
  }
  // The window top (px) of the element a placeKey names as the page is now drawn: the same element when its text
  // starts the same, else its holder's top moved by as much; null when the holder is not shown.
  function placeTop(a) {
    const all = app.querySelectorAll(a.sel), holder = all[a.i] || all[0];
    if (!holder || !holder.getClientRects().length) return null;
    const el = a.n < 0 ? holder : holder.querySelectorAll(a.tag)[a.n];
    if (el && el.getClientRects().length && el.textContent.slice(0, 200) === a.text) return el.getBoundingClientRect().top;
    return holder.getBoundingClientRect().top + a.top - a.htop;
  }
  // ``anchored``: the window follows the element at its centre (an open conversation's redraw); else scrollY is kept
  // (the list: a sort must not carry the window after the row that was at its centre).
  function keepingPlace(draw, anchored) {
    const k = focusKey(), x = window.scrollX, y = window.scrollY + SHORT, a = anchored ? HELD || placeKey() : null;
    draw();
    restoreFocus(k);
    const now = a ? placeTop(a) : null;
    const want = now === null ? y : window.scrollY + now - a.top;
    if (window.scrollX !== x || window.scrollY !== want) window.scrollTo(x, want);
    const off = Math.max(0, want - window.scrollY);
    SHORT = now === null ? off : 0;
    HELD = now !== null && off > 1 ? a : null;
  }

  // ------------------------------------------------------------------ Markdown

  // Prompts and replies are Markdown: parsed by the vendored marked, with every raw HTML token turned back into
  // escaped text (no raw HTML passes), then sanitised by the vendored DOMPurify (no script, handler, style, frame,
  // form or image). Without the two libraries the text is shown as it is.
  // marked is not in the page's shell (issue 22): no closed talk needs it, so a conversation's page draws its first
  // screen, then runs it (loadMarked: preloaded by the shell's head, parsed only now). A text drawn before then (a
  // talk opened at once) is drawn as it is and again as Markdown once marked is there (MD_WAIT); an address naming a
  // step or a talk waits for it before drawing.
  let MD = null, MD_LOAD = null, MD_TRIED = false;
  const MD_WAIT = [];
  function escapeHtml(t) { return String(t).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'); }
  function makeMD() {
    if (!MD && window.marked && window.DOMPurify && window.marked.Marked) {
      MD = new window.marked.Marked({ gfm: true, breaks: false, async: false });
      MD.use({ renderer: { html: function (tok) { return escapeHtml(tok.text !== undefined ? tok.text : tok.raw); } } });
    }
    return MD;
  }
  function loadMarked() {
    if (!MD_LOAD) MD_LOAD = new Promise(function (resolve) {
      if (makeMD()) { resolve(); return; }
      let left = 0;
      ['/static/vendor/purify.min.js', '/static/vendor/marked.umd.js'].forEach(function (src, i) {
        if (i === 0 ? window.DOMPurify : window.marked) return;
        left += 1;
        const s = document.createElement('script');
        s.src = src;
        s.async = false;
        s.onload = s.onerror = function () { if (--left === 0) resolve(); };
        document.body.appendChild(s);
      });
      if (!left) resolve();
    }).then(function () {
      MD_TRIED = true;
      makeMD();
      MD_WAIT.splice(0).forEach(function (el) { mdInto(el, el._mdText); });
    });
    return MD_LOAD;
  }
  const PURIFY = { ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i, FORBID_TAGS: ['style', 'img', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'svg', 'math'],
    FORBID_ATTR: ['style', 'srcset'], ALLOW_DATA_ATTR: false };
  function mdInto(el, text) {
    clear(el);
    el._mdText = text;
    el.classList.remove('plain');
    text = visibleText(text, true);
    if (!MD && !MD_TRIED) { MD_WAIT.push(el); loadMarked(); }  // drawn as it is until marked is parsed, then again
    if (!MD) { el.textContent = text; el.classList.add('plain'); return el; }
    try {
      el.innerHTML = window.DOMPurify.sanitize(MD.parse(String(text)), PURIFY);
    } catch (e) { el.textContent = text; el.classList.add('plain'); return el; }
    el.querySelectorAll('a[href]').forEach(function (a) { a.setAttribute('rel', 'noopener noreferrer nofollow'); a.setAttribute('target', '_blank'); });
    demoteHeadings(el);
    nestHeadings(el);
    el.querySelectorAll('table').forEach(function (t) { const w = h('div', { class: 'tablewrap md-table' }); t.replaceWith(w); w.append(t); });
    return el;
  }
  // A text's own headings move down together so its shallowest is an h3, under the page's h1 (the conversation) and
  // h2 (its sections), keeping their relative nesting and stopping at h6: the exports' rule (docs/view.md).
  function demoteHeadings(el) {
    const hs = Array.prototype.slice.call(el.querySelectorAll('h1, h2, h3, h4, h5, h6'));
    if (!hs.length) return;
    const shift = 3 - Math.min.apply(null, hs.map(function (x) { return Number(x.tagName[1]); }));
    if (shift <= 0) return;
    hs.forEach(function (x) {
      const n = document.createElement('h' + Math.min(6, Number(x.tagName[1]) + shift));
      while (x.firstChild) n.append(x.firstChild);
      x.replaceWith(n);
    });
  }
  // A subagent's talk opened inside a step sits a level under the talk holding that step, and so does all it holds
  // (fix29c; trial 28b F3 left them all at one level): each heading in ``root`` goes one level down per talk it sits in
  // beyond its first, from the level it was made at (kept in data-lv): a talk's h2 and its steps' h3 sections, h3 and
  // h4 in a subagent's talk opened in one of those steps, h4 and h5 one level further, stopping at h6. A heading already
  // at its level is left in place (never replaced: keyboard focus stays on a talk's button inside its heading).
  function talkDepth(x) {
    let d = -1;
    for (let t = x.closest('section.talk'); t; t = t.parentElement ? t.parentElement.closest('section.talk') : null) d++;
    return Math.max(0, d);
  }
  function nestHeadings(root) {
    root.querySelectorAll('h2, h3, h4, h5, h6').forEach(function (x) {
      const made = Number(x.dataset.lv || x.tagName[1]);
      const want = Math.min(6, made + talkDepth(x));
      if (want === Number(x.tagName[1])) return;
      const n = document.createElement('h' + want);
      Array.prototype.forEach.call(x.attributes, function (a) { n.setAttribute(a.name, a.value); });
      n.dataset.lv = String(made);
      while (x.firstChild) n.append(x.firstChild);
      x.replaceWith(n);
    });
  }
  function md(text, cls) { return mdInto(h('div', { class: 'md ' + (cls || '') }), text); }
  // A person's words (a prompt, what the runtime put in it: an IDE selection, an opened file) are not Markdown: drawn as
  // written, as text with its line breaks kept (.said), so \\wsl.localhost and my app\_build\*.obj keep every
  // backslash (trial 36c F1; the html export's rule, docs/view.md). The agent's replies stay Markdown.
  function said(text, cls) { return h('div', { class: 'said ' + (cls || '') }, visibleText(text, true)); }

  // ------------------------------------------------------------------ formatting

  function pad(n, w) { return String(n).padStart(w || 2, '0'); }
  // Times are shown in the reader's own time zone, with its short name as en-US writes it (UTC on a machine set to
  // UTC). The first Intl formatter a page makes starts ICU (12-20 ms in a new Chromium page, issue 22), so the first
  // screen does without it: the name is read from the Date's own text (V8's, no Intl formatter), its English long name
  // mapped to what en-US abbreviates (ZONE_SHORT) or written from its offset as ICU writes the others (GMT+5:30, GMT-3,
  // GMT), and only on a conversation's first screen where the browser speaks English (else Intl at once). Once that
  // screen is painted (checkFormats) Intl's own name is asked for every date so named, any that differs draws the
  // document again, and Intl names every zone from then on.
  let TZ_FORMAT = null, TZ_GUESS = false;
  const TZ_GUESSED = new Set();
  const ZONE_SHORT = { 'Coordinated Universal Time': 'UTC', 'Alaska Standard Time': 'AKST', 'Alaska Daylight Time': 'AKDT',
    'Atlantic Standard Time': 'AST', 'Atlantic Daylight Time': 'ADT', 'Central Standard Time': 'CST', 'Central Daylight Time': 'CDT',
    'Eastern Standard Time': 'EST', 'Eastern Daylight Time': 'EDT', 'Mountain Standard Time': 'MST', 'Mountain Daylight Time': 'MDT',
    'Pacific Standard Time': 'PST', 'Pacific Daylight Time': 'PDT' };
  function tzIntl(d) {
    try {
      if (!TZ_FORMAT) TZ_FORMAT = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' });
      const p = TZ_FORMAT.formatToParts(d).filter(function (x) { return x.type === 'timeZoneName'; })[0];
      return p ? p.value : '';
    } catch (e) { return ''; }
  }
  function tzGuess(d) {  // null where the Date's text does not say enough (a name not in English, Hawaii's)
    const m = /\(([^()]*)\)$/.exec(String(d));
    if (!m || /Hawaii/.test(m[1]) || !/^[A-Za-z .'-]+ Time$/.test(m[1])) return null;
    if (ZONE_SHORT[m[1]]) return ZONE_SHORT[m[1]];
    const off = -d.getTimezoneOffset(), a = Math.abs(off);
    return 'GMT' + (off ? (off < 0 ? '-' : '+') + Math.floor(a / 60) + (a % 60 ? ':' + pad(a % 60) : '') : '');
  }
  function tzShort(d) {
    const g = TZ_GUESS ? tzGuess(d) : null;
    if (g === null) return tzIntl(d);
    TZ_GUESSED.add(d.getTime());
    return g;
  }
  // After the first screen: ICU started (its formatters made), and every zone name the first screen guessed checked
  // against Intl's; a difference draws the document again (the open talks, tab and scroll kept), now named by Intl.
  function checkFormats() {
    num(1.5);
    TZ_GUESS = false;
    let wrong = false;
    TZ_GUESSED.forEach(function (t) { if (!wrong && tzIntl(new Date(t)) !== tzGuess(new Date(t))) wrong = true; });
    TZ_GUESSED.clear();
    if (wrong && D) redraw(D);
  }
  function fmtTime(ms) {
    if (ms === null || ms === undefined) return '—';
    if (ms === 0) return 'no time';
    const d = new Date(ms);
    return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' +
      pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + ' ' + tzShort(d);
  }
  function fmtClock(ms) {
    if (!ms) return '';
    const d = new Date(ms);
    return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3);
  }
  function fmtDur(ms) {
    if (ms === null || ms === undefined || ms < 0) return '';
    if (ms < 1000) return ms + ' ms';
    const s = ms / 1000;
    if (s < 60) return s.toFixed(1) + ' s';
    const t = Math.round(s);  // rounded to the last unit shown, half up, as asz ls rounds (docs/reading.md)
    if (t < 3600) return Math.floor(t / 60) + ' min ' + (t % 60) + ' s';
    const tm = Math.round(s / 60);
    return Math.floor(tm / 60) + ' h ' + (tm % 60) + ' min';
  }
  // A count as en-US writes it (1,234,567): a whole number grouped here, anything else by Intl (which starts ICU).
  function num(n) {
    if (n === null || n === undefined) return '—';
    const v = Number(n);
    if (!Number.isSafeInteger(v) || Object.is(v, -0)) return v.toLocaleString('en-US');
    return (v < 0 ? '-' : '') + String(Math.abs(v)).replace(/\B(?=(\d{3})+$)/g, ',');
  }
  function fmtBytes(n) {
    if (n === null || n === undefined) return '—';
    if (n < 1024) return n + ' B';
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' kB';
    return (n / 1048576).toFixed(1) + ' MB';
  }
  function utf8len(s) { return new TextEncoder().encode(s || '').length; }
  // The document clips a text to 2,000 bytes at a character boundary and gives the full size beside it (seed 004).
  const CLIP = 2000;
  function clipped(text, full) { const n = utf8len(text); return n > CLIP - 4 && typeof full === 'number' && full > n; }
  function oneLine(s, max) {
    s = String(s || '').replace(/\s+/g, ' ').trim();
    return s.length > max ? s.slice(0, max) + '…' : s;
  }
  function short(d) { return d ? String(d).slice(0, 12) : '—'; }
  function chip(label, value) { return h('span', { class: 'chip' }, label, ' ', h('b', null, value)); }
  // The heading of a conversation's problem list, by its state (a verified chain can still have problems: records not drawn).
  const PROBLEMS_HEAD = {
    verified: 'Its rounds verify, but asz found problems:',
    incomplete: 'This conversation is incomplete:',
    mismatch: 'This conversation does not verify:',
  };
  function stateBadge(s) { return h('span', { class: 'state ' + (s || 'unknown') }, s || 'not checked'); }
  // A list row's state as the kept list rows hold it from the last check (state_from 'kept': what asz ls shows, while
  // the files are unchanged since), until this server has checked the conversation again (trial 22b: a restarted
  // server marked 'not checked' for minutes rows asz ls called verified).
  const KEPT_STATE = 'from the last check (the kept list row, as asz ls shows it; the files unchanged since): this server checks it again';
  // A row asz ls marks 'verified !' (cli/conversations_cmd.state_cell): its rounds verify, but its document lists
  // problems all the same (summary.problems: records not drawn, a companion file that did not land). The same mark
  // after the state, its problems in its tooltip, a link to the conversation's problem list (#problems; trial 27a F6:
  // the list showed a plain green 'verified').
  function problemsMark(r) {
    if (r.state !== 'verified' || !r.problems || !r.problems.length) return null;
    // named by its title's words (trial 28b, F8: a link named "!", its meaning in a tooltip a keyboard never shows)
    const said = num(r.problems.length) + ' problem(s) asz found, though its rounds verify (open the conversation for the list): ' + r.problems.join('; ');
    return h('a', { class: 'state problems', href: withHide('/c/' + enc(r.id)) + '#problems', title: said, 'aria-label': visibleText(said, false) }, '!');
  }
  // A row asz ls marks 'errors' or 'never ended' (cli/conversations_cmd.state_cell): a model request or a run (a failed
  // LangGraph trace) ended with an error (api_errors, failed_runs of them), or runs started and have no end recorded
  // (never_ended: the app crashed); the marks' tooltips say it in asz conversation's words (the row's errors_said,
  // rate_words.error_words; the never ended: problem line; trial 27a: the list read a plain 'verified'; 32a F7).
  function failedMarks(r) {
    const out = [];
    if (r.api_errors > 0) out.push(h('span', { class: 'state failed errors', title: r.errors_said || (num(r.api_errors) + ' ' + WORDS.api_errors) }, 'errors'));
    const unended = (r.problems || []).filter(function (p) { return String(p).indexOf(WORDS.unended_prefix) === 0; });
    if (r.never_ended > 0) out.push(h('span', { class: 'state failed never-ended', title: unended.join('; ') }, 'never ended'));
    const memory = inMemoryMark(r.problems);
    if (memory) out.push(memory);
    return out;
  }
  // A conversation whose chain is damaged (no round of it verifies), read from its landed records in memory as asz
  // parse would write its rounds (flow/in_memory.py, trial 29a F8): 'in memory' after its state, as asz ls marks it,
  // the problem line (WORDS.in_memory …) in its tooltip.
  function inMemoryMark(problems) {
    const said = (problems || []).filter(function (p) { return String(p).indexOf(WORDS.in_memory) === 0; });
    return said.length ? h('span', { class: 'state failed in-memory', title: said.join('; ') }, 'in memory') : null;
  }
  function rowState(r) {
    const mark = problemsMark(r);
    const failed = failedMarks(r);
    if (r.state_from !== 'kept') return mark || failed.length ? [stateBadge(r.state), mark].concat(failed) : stateBadge(r.state);
    return h('span', { title: KEPT_STATE }, stateBadge(r.state), mark, failed, h('div', { class: 'small faint last-check' }, 'last check'));
  }
  // What the box over the list says is still going on: rows still counted get their figures, and states marked
  // 'last check' are checked again; the list itself fills in only while a collect pass lands (trial 22b: it said
  // "The list fills in as it goes" when every row was listed and only states were being checked).
  function readingWords(s) {
    const bits = [];
    if (s.counting) bits.push(num(s.counting) + ' row(s) marked counting… get their figures as they are counted');
    if (/^checking conversations|; checking conversations/.test(s.reading || '')) bits.push('every conversation is listed; this server is ' +
      'checking their states again: until it has, a state marked "last check" is the one its kept list row holds, as asz ls shows it');
    const t = bits.join('; ');
    return t ? t.charAt(0).toUpperCase() + t.slice(1) + '.' : 'The list fills in as it goes.';
  }
  // A source of the session the collector no longer reads (its cursor is in conflict: rewritten, cut shorter, rotated):
  // what landed is kept and verifies, nothing newer lands until asz sources --reset-conflict (trial 19, F5).
  function stoppedTitle(c) { return c.map(function (x) { return x.file + ': ' + x.why; }).join('; ') + ' (no longer read; ' + c[0].next + ')'; }
  function stoppedBadge(c) { return c && c.length ? h('span', { class: 'state stopped', title: stoppedTitle(c) }, 'stopped') : null; }
  function stoppedBox(c) {
    return h('div', { class: 'box notice', id: 'stopped', role: 'status' }, h('strong', null, 'Not being read any more: '),
      h('ul', null, c.map(function (x) {
        return h('li', null, h('span', { class: 'mono' }, x.file), ' — ' + x.why + '. Since ' + fmtTime(Date.parse(x.since)) +
          ' the collector no longer reads this source; what landed is kept (' + (x.kept_lines === null ? '' : num(x.kept_lines) + ' lines, ') +
          fmtBytes(x.kept_bytes) + ') and verifies, and nothing newer lands. ', h('code', null, x.next.split(' reads ')[0]), ' reads it again once its bytes are back (--reread: from its start).');
      })));
  }
  // A source of the session a collect pass found gone (its runtime deleted it: Claude Code's 30-day clean-up, Kiro's
  // own): what landed of it is all there is now, kept in this root only. asz ls marks the row's STATE gone and asz
  // conversation prints a gone: line each (trial 23b, F3; conflicts.gone_line); the page said neither (trial 29c F11).
  function goneWhen(x) { return x.since ? fmtTime(Date.parse(x.since)) : 'a time not recorded'; }
  function goneKept(x) { return (typeof x.kept_lines === 'number' ? num(x.kept_lines) + ' lines, ' : '') + fmtBytes(x.kept_bytes); }
  function goneTitle(g) {
    return g.map(function (x) { return 'its source ' + x.file + ' was found gone at ' + goneWhen(x) + '; what landed of it is kept in this root only (' + goneKept(x) + ')'; }).join('; ');
  }
  function goneBadge(g) { return g && g.length ? h('span', { class: 'state gone', title: goneTitle(g) }, 'gone') : null; }
  function goneBox(g) {
    return h('div', { class: 'box notice', id: 'gone', role: 'status' }, h('strong', null, 'Sources gone: '),
      h('ul', null, g.map(function (x) {
        return h('li', null, 'its source ', h('span', { class: 'mono' }, x.file), ' was found gone at ' + goneWhen(x) +
          '; what landed of it (' + goneKept(x) + ') is kept in this root only, and verifies: it is all there is now.');
      })), h('span', { class: 'small muted' }, 'asz sources lists the files; asz conversation prints a gone: line each.'));
  }
  // Retention (asz prune) replaced the conversation's landed files by skeletons: the structure, times, ids, models and
  // usage stay; the text went, so its title says (removed by retention) and no talk has a label (trial 19, F21).
  const REMOVED_KEPT = 'skeletons keep the structure, times, ids, models and token usage; the prompts, replies, tool input and output and each record\'s working directory (cwd) went with the text';
  function removedBadge(n) {
    return n ? h('span', { class: 'state removed', title: num(n) + ' landed file(s) removed by retention: ' + REMOVED_KEPT }, 'removed') : null;
  }
  function removedBox(r) {
    return h('div', { class: 'box notice', id: 'removed', role: 'status' }, h('strong', null, 'Removed by retention' + (r.at ? ' at ' + fmtTime(Date.parse(r.at)) : '') + ': '),
      num(r.files) + ' of ' + num(r.landed) + ' landed file(s) (' + removedSize(r) + ') are skeletons. The ' + REMOVED_KEPT +
      '; ' + WORDS.kept_src + '.');  // removed.KEPT_SRC, its one place
  }
  // The removed files' size, as asz conversation says it (reading.removed.removed_size): a skeleton whose header cannot
  // be read gives none, said with why (summary.removed.size_unknown), never 0 B.
  function removedSize(r) {
    const un = r.size_unknown || [];
    if (!un.length) return fmtBytes(r.bytes);
    const why = un.map(u => 'skeleton ' + u.file + ' ' + u.why).join('; ');
    return un.length >= r.files ? 'size unknown: ' + why : fmtBytes(r.bytes) + ', and ' + num(un.length) + ' more of size unknown: ' + why;
  }
  // The talk's first person's input whose text retention removed (its state removed), else null: the person typed it.
  function removedOpening(t) {
    const stack = [t];
    while (stack.length) {
      const n = stack.shift();
      if (n.kind === 'message.external') return n.state === 'removed' ? n : null;
      (n.children || []).forEach(function (c) { stack.push(c); });
    }
    return null;
  }
  // An error, said at once in the page's alert region (#alarm) as it is drawn.
  function errorBox(title, res) {
    const box = h('div', { class: 'box error' }, h('strong', null, title), ' ',
      h('span', { class: 'muted' }, res.status ? '(HTTP ' + res.status + ')' : ''), h('pre', null, res.error || ''));
    say(title + ' ' + (res.status ? '(HTTP ' + res.status + ') ' : '') + (res.error || ''), true);
    return box;
  }

  // ------------------------------------------------------------------ routing

  const app = document.getElementById('app');
  const where = document.getElementById('where');
  const drawer = document.getElementById('drawer');
  document.getElementById('home').setAttribute('href', withHide('/'));
  // The skip link, the page's first Tab stop (trial 28b, F9: the first conversation was the 26th, the first talk the
  // 17th): it gives focus to the list's first conversation, or the conversation's first talk, without touching the
  // address's # part (the page's state).
  const skip = document.getElementById('skip');
  skip.addEventListener('click', function (ev) {
    ev.preventDefault();
    const to = ['#rows a.convtitle', '#panel section.talk .talkhead', '#panel', 'h1'].map(function (c) { return app.querySelector(c); })
      .filter(Boolean)[0];
    if (!to) return;
    if (!to.matches('a[href], button')) to.setAttribute('tabindex', '-1');
    to.focus();
  });
  function skipTo(words) { skip.textContent = words; }

  function route() {
    stopFill();  // a fill of the page left (appendSteps)
    const p = location.pathname.slice(BASE.length);
    if (p === '/' || p === '') return listPage();
    const m = /^\/c\/([^/]+)$/.exec(p);
    if (m) {
      let id;
      try { id = decodeURIComponent(m[1]); } catch (e) { id = m[1]; }
      return conversationPage(id);
    }
    add(clear(app), h('div', { class: 'box error' }, 'No such page.'));
  }

  // ------------------------------------------------------------------ list page

  // Filters and the search live in the address's # part, so a filtered list can be linked and reloaded.
  const FILTERS = ['project', 'model', 'dialect', 'sentby', 'since', 'until', 'q', 'view', 'sort', 'by'];
  let LIST = null;       // the last /api/conversations answer
  // SHOWN_IDS: conversation id -> the prefix the page shows it by (the list's shown_ids, the headings' for a conversation's
  // links): 8 characters or more, whole where a prefix would read as another id (storage.ids.unique_prefixes, 43c F9).
  let SHOWN_IDS = {};
  function shortId(id) { return SHOWN_IDS[id] || String(id).slice(0, 8); }
  let LISTKEY = '';      // its JSON, to redraw only when it changed
  let listTimer = null;
  // Which list page is drawn: 'rows' (the search, the filters, the table) or 'empty' (the box saying the root holds no
  // conversation), and whether asz server's first pass ran at the last status answered (/api/status first_pass). A poll
  // that changes either draws the page again (trial 50b F1: a page opened before the first pass listed a row drew the
  // empty box, and the rows its polls brought had no table to go in: it stayed empty until reloaded).
  let SHELL = '';
  let FIRST_PASS = false;
  function shellKind(list) { return list.conversations.length || FIRST_PASS ? 'rows' : 'empty'; }

  function listPage() {
    document.title = 'Conversations · asz view';
    skipTo('Skip to the conversations');
    if ('scrollRestoration' in history) history.scrollRestoration = 'manual';  // restorePlace does it, once drawn
    takePlace();
    window.addEventListener('pagehide', savePlace);
    add(clear(app), h('p', { class: 'muted' }, 'Loading conversations…'));
    const asked = listFilters().dialect;
    Promise.all([listAsk(asked), api('/api/status')]).then(function (rs) {
      const res = rs[0], st = rs[1];
      clear(app);
      if (!res.ok) { add(app, [h('h1', null, 'Conversations'), errorBox('The server refused the list.', res)]); return; }
      where.textContent = res.data.root;
      takeList(res.data, asked);
      if (st.ok) FIRST_PASS = !!st.data.first_pass;
      drawListShell(st.ok ? st.data : null);
      restorePlace(!listFilters().q);  // with a search, its hits are drawn next
      if (!listTimer) nextRefresh();
    });
  }

  // The list answered for the Runtime filter ``asked`` taken as the one drawn: its shown ids kept, ``key`` its rows' JSON
  // (computed when not given), which a poll compares to redraw only on a change.
  function takeList(data, asked, key) {
    LIST = data; SHOWN_IDS = Object.assign(SHOWN_IDS, data.shown_ids || {}); LIST.runtimeFor = asked;
    LISTKEY = key === undefined ? JSON.stringify(data.conversations) : key;
  }

  // Rows whose summary the server is still counting (issue 22): their models, tokens and cost say so, never 0.
  function countingRows() { return LIST ? LIST.conversations.filter(function (r) { return r.counting; }).length : 0; }
  // The list is asked for again every 5 s, every second while the server still counts rows, every 2 s while asz
  // server's first pass lists them.
  function nextRefresh() {
    listTimer = setTimeout(refreshList, countingRows() > 0 ? 1000 : FIRST_PASS ? 2000 : 5000);
  }

  // Polls the list and the status; redraws the rows only when something changed (new rounds, a state found).
  function refreshList() {
    if (document.hidden) { nextRefresh(); return; }
    const asked = listFilters().dialect;
    Promise.all([listAsk(asked), api('/api/status')]).then(function (rs) {
      polled(pollStatus(rs));
      const st = rs[1].ok ? rs[1].data : null;
      if (st) { const sl = document.getElementById('status'); if (sl) sl.replaceWith(statusLine(st)); sayReading(st); FIRST_PASS = !!st.first_pass; }
      if (rs[0].ok) {
        const key = JSON.stringify(rs[0].data.conversations), kind = shellKind(rs[0].data);
        if (kind !== SHELL) {  // the first rows, the first pass ended with none, or every row gone: the page drawn again
          takeList(rs[0].data, asked, key);
          keepingPlace(function () { clear(app); drawListShell(st); });
          if (LIST.conversations.length) say(num(LIST.conversations.length) + ' conversation(s) listed.');
        } else if (key !== LISTKEY || document.getElementById('list-refused')) {
          takeList(rs[0].data, asked, key);
          keepingPlace(function () {
            fillFilterOptions();
            if (document.getElementById('list-refused')) showListView(listFilters().view === 'usage' ? 'usage' : 'list');
            else drawRows();
          });
        } else { LIST.note = rs[0].data.note; drawNote(); }
      }
      nextRefresh();
    }, function () { nextRefresh(); });
  }

  // The list as the Runtime filter ``asked`` marks it: with one, each row carries runtime_kept, the server's answer by
  // its one rule (asz_core.view.match.runtime_keeps; review A 26: the page held a second copy of it).
  // Asked through api's extra, which joins it with the address's hide parameters (a path holding '?' had them appended
  // with a second '?', read into the runtime value: the page's hide was lost and the filter kept no row).
  function listAsk(asked) { return api('/api/conversations', asked ? 'runtime=' + enc(asked) : ''); }
  // The rows asked again when the Runtime filter changed since the list was asked for, then drawn. A reload the server
  // refuses is said in the panel as the first load says it, in place of the rows the filter no longer describes (review
  // A 27: the old rows stayed, silently); the next refresh that is answered draws the list again.
  function reloadList() {
    const asked = listFilters().dialect;
    listAsk(asked).then(function (res) {
      if (listFilters().dialect !== asked) return;
      if (!res.ok) {
        const panel = document.getElementById('listpanel');
        if (panel) clear(panel).append(h('div', { id: 'list-refused' }, errorBox('The server refused the list.', res)));
        return;
      }
      takeList(res.data, asked);
      fillFilterOptions(); redrawList();
    });
  }

  function listFilters() {
    const hp = hashParams(), f = {};
    FILTERS.forEach(function (k) { f[k] = hp[k] || ''; });
    return f;
  }

  // The box of a list with no row. asz view: how to fill the root; asz server: what its passes do (its note); during
  // its first pass, that the pass is reading the sources and the rows come as it lists them (trial 50b F4: the box
  // advised running asz server to one who ran it, the line under it saying the pass was reading).
  function emptyBox(status) {
    if (FIRST_PASS) {
      return h('div', { class: 'box notice', id: 'empty', 'data-first-pass': '' }, h('strong', null, 'Reading the sources. '),
        LIST.note ? sentence(LIST.note) : '', ' The page fills in by itself, with no reload.');
    }
    if (status && status.mode === 'server') {
      return h('div', { class: 'box notice', id: 'empty' }, h('strong', null, 'No conversations yet. '), LIST.note ? sentence(LIST.note) : '');
    }
    return h('div', { class: 'box notice', id: 'empty' }, h('strong', null, 'No conversations yet. '),
      'This storage root holds no conversation: collect sessions and parse them into rounds ',
      h('code', null, 'asz collect --once --root DIR'), ' then ', h('code', null, 'asz parse --root DIR'),
      ', or run ', h('code', null, 'asz server'), ', which does both.', LIST.note ? h('div', { class: 'small' }, LIST.note) : null);
  }
  function sentence(t) { t = String(t); return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?]$/.test(t) ? '' : '.'); }
  // The list's note under the tabs, as the last poll answered it; while the first pass has listed no row, the box above
  // the search says it instead.
  function drawNote() {
    const n = document.getElementById('listnote'), box = document.getElementById('empty');
    const boxed = FIRST_PASS && !LIST.conversations.length;
    if (box && !boxed) box.remove();
    if (!n) return;
    const text = boxed ? '' : (LIST.note || '');
    if (n.textContent !== text) n.textContent = text;
    n.hidden = !text;
  }

  function drawListShell(status) {
    const f = listFilters();
    SHELL = shellKind(LIST);
    add(app, h('h1', null, 'Conversations'));
    add(app, status ? statusLine(status) : null);
    if (SHELL === 'empty') { add(app, emptyBox(status)); return; }
    if (!LIST.conversations.length) add(app, emptyBox(status));  // the first pass lists none yet: the search is there
    const q = h('input', { type: 'search', id: 'q', placeholder: 'Search prompts, replies, thinking, tool inputs and results', value: f.q, 'aria-label': 'Search' });
    // #by=conversation: one row per conversation whose texts hold every word between them (asz search --conversations)
    const byconv = h('input', { type: 'checkbox', id: 'byconv' });
    byconv.checked = f.by === 'conversation';
    byconv.addEventListener('change', function () { setHash({ by: byconv.checked ? 'conversation' : null }); runSearch(); });
    const form = h('form', { class: 'searchbar', role: 'search' }, q, h('button', { class: 'btn primary', type: 'submit' }, 'Search'),
      h('label', { class: 'small' }, byconv, ' by conversation (each word in any message)'));
    form.addEventListener('submit', function (ev) { ev.preventDefault(); setHash({ q: q.value.trim() || null, view: null }); runSearch(); });
    add(app, form);
    const bar = h('div', { class: 'filters', id: 'filters' },
      filterSelect('project', 'Project'), filterSelect('model', 'Model'), filterSelect('dialect', 'Runtime'),
      filterSelect('sentby', 'Sent by'),  // a receiving root's rows carry sent_by: which host sent each (trial 32c F4)
      h('label', null, 'From ', dateInput('since', f.since)), h('label', null, 'to ', dateInput('until', f.until)),
      h('button', { class: 'btn', type: 'button', id: 'clearf', onclick: function () {
        setHash({ project: null, model: null, dialect: null, sentby: null, since: null, until: null }); syncFilterInputs(); redrawList(); } }, 'Clear filters'));
    add(app, [bar, h('p', { class: 'box notice small', id: 'filternone', hidden: 'hidden' })]);
    const tabs = h('div', { class: 'tabs', role: 'tablist', id: 'listtabs' },
      h('button', { role: 'tab', id: 'tab-list', 'data-view': 'list', 'aria-controls': 'listpanel', tabindex: '-1', onclick: function () { showListView('list'); } }, 'Conversations'),
      h('button', { role: 'tab', id: 'tab-usage', 'data-view': 'usage', 'aria-controls': 'listpanel', tabindex: '-1', onclick: function () { showListView('usage'); } }, 'Usage per day'));
    arrowTabs(tabs);
    add(app, [tabs, h('div', { id: 'hits' }), h('div', { id: 'listpanel', role: 'tabpanel' })]);
    add(app, h('p', { class: 'faint small', id: 'listnote' }));
    drawNote();
    fillFilterOptions();
    showListView(f.view === 'usage' ? 'usage' : 'list');
    sayNoMatch();
    if (f.q) runSearch();
  }

  function showListView(name) {
    setHash({ view: name === 'usage' ? 'usage' : null });
    const panel = clear(document.getElementById('listpanel'));
    selectTab(document.getElementById('listtabs'), panel, function (b) { return b.getAttribute('data-view') === name; });
    if (name === 'usage') { drawUsage(panel); return; }
    panel.append(h('div', { class: 'tablewrap' }, h('table', { class: 'conv' },
      h('thead', null, h('tr', null, sortHead('title', 'Conversation', ''), sortHead('last', 'Last activity', ''),
        h('th', { class: 'hide-narrow' }, 'Model'), sortHead('tokens', 'Tokens', 'num'), sortHead('cost', 'Cost', 'num'),
        sortHead('talks', 'Talks', 'num hide-narrow'), sortHead('calls', 'Model calls', 'num hide-narrow'),
        sortHead('steps', 'Steps', 'num hide-narrow'), h('th', { class: 'hide-narrow', title: RUNTIME_TITLE }, 'Runtime'),
        sentBy() ? h('th', { class: 'hide-narrow', id: 'sent-by-head', title: SENT_TITLE }, 'Sent by') : null,
        h('th', null, 'State'))), h('tbody', { id: 'rows' }))),
      h('p', { class: 'faint small', id: 'shown' }), h('p', { class: 'faint small', id: 'list-partial' }));
    drawRows();
  }

  // Sortable columns (trial 17b, F8): a header's button orders the rows by it, largest or newest first (a title A to Z),
  // and again the other way; the order is kept in the address (#sort=cost, #sort=cost-asc) beside the filters, and the
  // header says it (aria-sort). The asz ls --sort orders: a row with no figure (held back, not recorded, still counted) comes last.
  const SORT_VALUE = {
    title: function (r) { return r.title ? String(r.title).toLowerCase() : null; },
    last: function (r) { return r.to || null; },
    tokens: function (r) { return r.held_back || r.counting || rowUnrecorded(r) ? null : tokens(r.usage); },
    cost: function (r) { return r.held_back || r.counting || rowUnrecorded(r) || !r.cost || typeof r.cost.usd !== 'number' ? null : r.cost.usd; },
    talks: function (r) { return typeof r.talks === 'number' && !(r.calls_unread && !r.talks) ? r.talks : null; },
    calls: function (r) { return typeof r.llm_calls === 'number' && !r.calls_unread ? r.llm_calls : null; },
    steps: function (r) { return typeof r.steps === 'number' ? r.steps : null; },
  };
  function sortOrder() {  // [key, ascending]
    const m = /^([a-z]+)(-asc|-desc)?$/.exec(listFilters().sort || '');
    if (!m || !SORT_VALUE[m[1]]) return ['last', false];
    return [m[1], m[2] ? m[2] === '-asc' : m[1] === 'title'];
  }
  function sortHead(key, label, cls) {
    const o = sortOrder(), on = o[0] === key;
    const b = h('button', { type: 'button', class: 'sorter', 'data-sort': key, title: 'Sort by ' + label.toLowerCase() },
      label, on ? (o[1] ? ' ▲' : ' ▼') : '');
    b.addEventListener('click', function () {
      const now = sortOrder(), first = key === 'title';  // a title A to Z first, a figure largest first
      const asc = now[0] === key ? !now[1] : first;
      setHash({ sort: key === 'last' && !asc ? null : key + (asc ? '-asc' : '-desc') });
      keepingPlace(function () { showListView('list'); });  // the header is drawn again: focus stays on its sort button
      sayCount();
    });
    return h('th', { class: cls || null, 'aria-sort': on ? (o[1] ? 'ascending' : 'descending') : 'none' }, b);
  }
  function sortRows(rows) {
    const o = sortOrder(), value = SORT_VALUE[o[0]], dir = o[1] ? 1 : -1;
    const newest = function (a, b) { return (b.to || 0) - (a.to || 0) || (a.id < b.id ? -1 : 1); };
    return rows.sort(function (a, b) {
      const x = value(a), y = value(b);
      if (x === null || y === null) return x === y ? newest(a, b) : (x === null ? 1 : -1);
      return x < y ? -dir : x > y ? dir : newest(a, b);
    });
  }

  // A filter changed: the open tab is drawn again under it (the usage tab asks /api/usage with the filters, trial 17b F12).
  function redrawList() {
    if (LIST && (LIST.runtimeFor || '') !== listFilters().dialect) { reloadList(); return; }
    if (listFilters().view === 'usage') { const panel = document.getElementById('listpanel'); if (panel) drawUsage(clear(panel)); sayNoMatch(); }
    else drawRows();
    sayCount();
  }
  // The line under the list (how many rows match, in what order) and a filter that keeps none, said after a filter or
  // a sort changed them.
  function sayCount() {
    const none = document.getElementById('filternone'), shown = document.getElementById('shown');
    const words = [none && !none.hidden ? none.textContent : '', shown && listFilters().view !== 'usage' ? shown.textContent : ''];
    if (words.join('')) say(words.filter(Boolean).join(' '));
  }
  // /api/usage's query for the filters above the tabs: the project and model the dropdowns picked, whole (exact=1), and
  // the days from and to as instants of this browser's zone, the Conversations tab's days.
  function usageQuery() {
    const f = listFilters(), q = [];
    if (f.project) q.push('project=' + enc(f.project));
    if (f.model) q.push('model=' + enc(f.model));
    if (f.sentby) q.push('instance=' + enc(f.sentby));  // /api/usage's instance: asz usage --instance's rule
    // a whole name (as the dropdowns pick it) keeps that name alone, any other value a part of the name (filterKeeps)
    const given = [['project', f.project], ['model', f.model]].filter(function (x) { return x[1]; });
    if (given.length && given.every(function (x) { return wholeName(x[0], x[1]); })) q.push('exact=1');
    const since = f.since ? dayStart(f.since) : null, until = f.until ? dayStart(f.until) : null;
    if (since !== null) q.push('since=' + enc(new Date(since).toISOString()));
    if (until !== null) q.push('until=' + enc(new Date(until + 86400000 - 1).toISOString()));
    // the days a call with no time of its own is placed on (by its conversation's range): this page's, as localDay's
    if (tzName() !== 'local') q.push('tz=' + enc(tzName()));
    return q.join('&');
  }
  // What /api/usage said it narrowed the figures to, in words ('' when nothing).
  function usageFilterText(f) {
    if (!f) return '';
    const bits = [];
    if (f.project) bits.push('project ' + f.project);
    if (f.model) bits.push('model ' + f.model);
    if (f.instance) bits.push('sent by ' + f.instance);
    if (f.since !== null && f.since !== undefined) bits.push('from ' + fmtTime(f.since));
    if (f.until !== null && f.until !== undefined) bits.push('to ' + fmtTime(f.until));
    const runtime = listFilters().dialect ? 'The Runtime filter does not narrow these figures: every runtime is counted. ' : '';
    return (bits.length ? 'Only ' + bits.join(', ') + ' (the filters above). ' : '') + runtime;
  }

  function filterSelect(key, label) {
    const sel = h('select', { id: 'f-' + key, 'data-filter': key, 'aria-label': label });
    sel.addEventListener('change', function () { const o = {}; o[key] = sel.value || null; setHash(o); redrawList(); });
    return h('label', null, label + ' ', sel);
  }
  function dateInput(key, value) {
    const inp = h('input', { type: 'date', id: 'f-' + key, 'data-filter': key, value: value || null });
    inp.addEventListener('change', function () { const o = {}; o[key] = inp.value || null; setHash(o); redrawList(); });
    return inp;
  }
  function syncFilterInputs() {
    const f = listFilters();
    document.querySelectorAll('[data-filter]').forEach(function (e) { e.value = f[e.getAttribute('data-filter')] || ''; });
  }
  function rowModels(r) { return Array.isArray(r.models) ? r.models.filter(function (m) { return typeof m === 'string'; }) : []; }
  // The Runtime column and filter (asz ls's RUNTIME, in its words): the dialect name of the conversation's main
  // transcript, the runtime that wrote it (claude-code, kiro, langsmith); - when no transcript landed.
  const RUNTIME_TITLE = 'the runtime that wrote the conversation: the dialect name of its main transcript, as asz ls prints it under RUNTIME';
  const NO_RUNTIME = 'no transcript landed (hook records alone): no runtime is named';
  // The Runtime filter (#dialect=…): which rows it keeps is the server's to say, by its one rule (the runtime's name,
  // its name and version as the chip shows them, the start of either in any case, or a dialect held whole:
  // asz_core.view.match.runtime_keeps; docs/view.md, List): the list is asked for with it (listAsk) and each row
  // carries the answer, runtime_kept. A list asked for with another value is asked again before it is drawn.
  function runtimeKeeps(r, value) {
    return !value || r.runtime_kept === true;
  }
  function rowRuntime(r) { return typeof r.runtime === 'string' ? r.runtime : (r.runtime && typeof r.runtime.name === 'string' ? r.runtime.name : ''); }
  // One rule for the project and model filters, the address's and the dropdowns' (trial 21: #project=claude-code-log
  // showed 0 of 0 while asz ls --project claude-code-log matched): a value that is a whole name of the list keeps that
  // name alone (what a dropdown picks), any other keeps the names holding it, case-insensitive, as asz ls does.
  // Names compare in their NFC spelling (asz_core.sessiondata.spelling: macOS's decomposed Zoe\u0308 and a keyboard's
  // Zo\u00eb are one project, trial 31c F2), case-insensitively as lower case in NFC (folded).
  function nfc(s) { return String(s).normalize('NFC'); }
  function folded(s) { return nfc(s).toLowerCase().normalize('NFC'); }
  // A Windows folder's names are one project (asz_core.sessiondata.spelling.windows_path/project_key; trial 36c F2):
  // NTFS ignores letter case, / is \, and WSL's /mnt/c/x is C:\x. winPath: the Windows name, or null for another path.
  function winPath(s) {
    const n = nfc(s), m = /^\/mnt\/([a-z])(?=\/|$)/.exec(n);
    if (m) return m[1].toUpperCase() + ':' + (n.slice(m[0].length).replace(/\//g, '\\') || '\\');
    return /^[A-Za-z]:(?:[\\/]|$)/.test(n) || /^(?:\\\\|\/\/)[^\\/]/.test(n) ? n.replace(/\//g, '\\') : null;
  }
  function projectKey(s) {
    const w = winPath(s);
    if (w === null) return nfc(s);
    const k = folded(w);
    return k.endsWith('\\') && k.length > 3 ? k.slice(0, -1) : k;
  }
  function holds(key, name, part) {  // a part of a name, as asz_core.view.match.contains reads it
    if (folded(name).indexOf(part) >= 0) return true;
    const w = key === 'project' ? winPath(name) : null;
    return w !== null && folded(w).indexOf(part.replace(/\//g, '\\')) >= 0;
  }
  function filterNames(key) {
    const names = new Set();
    (LIST ? LIST.conversations : []).forEach(function (r) {
      if (key === 'project' && r.project) names.add(projectKey(r.project));
      if (key === 'model') rowModels(r).forEach(function (m) { names.add(nfc(m)); });
    });
    return names;
  }
  function nameKey(key) { return key === 'project' ? projectKey : nfc; }
  function wholeName(key, value) { return filterNames(key).has(nameKey(key)(value)); }
  function filterKeeps(key, value, names) {
    if (!value) return true;
    if (key === 'project' && value === WORDS.no_project) return !names.some(Boolean);  // the rows naming no project (F4)
    if (wholeName(key, value)) return names.map(nameKey(key)).indexOf(nameKey(key)(value)) >= 0;
    const part = folded(value);
    return names.some(function (n) { return holds(key, n, part); });
  }
  // A project or model filter no conversation passes says so above the tabs (#filternone), never an empty list alone.
  function sayNoMatch() {
    const box = document.getElementById('filternone');
    if (!box) return;
    const f = listFilters(), none = [];
    [['project', 'project'], ['model', 'model']].forEach(function (k) {
      if (f[k[0]] && !LIST.conversations.some(function (r) { return filterKeeps(k[0], f[k[0]], k[0] === 'project' ? [r.project || ''] : rowModels(r)); }))
        none.push(k[1] + ' \u201c' + f[k[0]] + '\u201d');
    });
    box.hidden = !none.length;
    add(clear(box), none.length ? 'No conversation has a ' + none.join(' or a ') + ' (a whole name, or a part of one in any case, ' +
      'as asz ls --project matches): nothing below passes the filter. Pick one from the list, or clear the filters.' : null);
  }
  function fillFilterOptions() {
    const f = listFilters();
    const sets = { project: new Set(), model: new Set(), dialect: new Set(), sentby: new Set() };
    const labels = {}, shown = {};  // a project's label, told apart from the others' by the server (project_label; trial 31c F3)
    LIST.conversations.forEach(function (r) {
      if (r.project && !shown[projectKey(r.project)]) shown[projectKey(r.project)] = nfc(r.project);  // one option a folder
      if (r.project) { sets.project.add(shown[projectKey(r.project)]); labels[shown[projectKey(r.project)]] = r.project_label || r.project; }
      else if (!blindTo(r, 'project')) { sets.project.add(WORDS.no_project); labels[WORDS.no_project] = WORDS.no_project; shown[WORDS.no_project] = WORDS.no_project; }
      rowModels(r).forEach(function (m) { sets.model.add(nfc(m)); });
      if (rowRuntime(r)) sets.dialect.add(rowRuntime(r));
      rowSenders(r).forEach(function (n) { sets.sentby.add(n.label); });
    });
    Object.keys(sets).forEach(function (k) {
      const sel = document.getElementById('f-' + k);
      if (!sel) return;
      const key = JSON.stringify([Array.from(sets[k]).sort(), f[k], k === 'project' ? labels : null]);
      if (sel.getAttribute('data-options') === key) return;  // unchanged: the open select is left as it is
      sel.setAttribute('data-options', key);
      clear(sel).append(h('option', { value: '' }, k === 'project' ? 'all projects' : k === 'model' ? 'all models' : k === 'sentby' ? 'all senders' : 'all runtimes'));
      Array.from(sets[k]).sort().forEach(function (v) {  // a project: its label, the whole path in its title
        sel.append(h('option', k === 'project' ? { value: v, title: v } : { value: v }, k === 'project' ? labels[v] : v));
      });
      if (f[k] && !(k === 'project' ? shown[projectKey(f[k])] : sets[k].has(k === 'dialect' ? f[k] : nfc(f[k])))) {
        const some = LIST.conversations.some(function (r) { return k === 'dialect' ? runtimeKeeps(r, f[k]) : k === 'sentby' ? sentByKeeps(r, f[k]) : filterKeeps(k, f[k], k === 'project' ? [r.project || ''] : rowModels(r)); });
        sel.append(h('option', { value: f[k] }, some ? (k === 'dialect' ? 'starting \u201c' : 'holding \u201c') + f[k] + '\u201d' : f[k] + ' (none now)'));
      }
      sel.value = k !== 'dialect' && k !== 'sentby' && f[k] && sets[k].has(nfc(f[k])) ? nfc(f[k]) : f[k];
      sel.parentElement.hidden = sets[k].size === 0 && !f[k];
    });
  }
  function dayStart(s) { const d = new Date(s + 'T00:00:00'); return isNaN(d) ? null : d.getTime(); }

  // A project or model filter cannot judge a conversation that does not verify and gives no project (or no model):
  // what its failed files said is held back. It is kept, and the count line says so, never left out silently
  // (asz ls's rule, listing.blind_to; trial 25b F3).
  const UNVERIFIED = ['mismatch', 'incomplete', 'unreadable'];
  function blindTo(r, key) {
    return (UNVERIFIED.indexOf(r.state) >= 0 || !!r.held_back) && (key === 'project' ? !r.project : !rowModels(r).length);
  }
  function unjudgedRows(rows) {
    const f = listFilters();
    return rows.filter(function (r) { return (f.project && blindTo(r, 'project')) || (f.model && blindTo(r, 'model')); });
  }
  function filteredRows() {
    const f = listFilters();
    const since = f.since ? dayStart(f.since) : null, until = f.until ? dayStart(f.until) : null;
    return sortRows(LIST.conversations.filter(function (r) {
      if (!blindTo(r, 'project') && !filterKeeps('project', f.project, [r.project || ''])) return false;
      if (!blindTo(r, 'model') && !filterKeeps('model', f.model, rowModels(r))) return false;
      if (!runtimeKeeps(r, f.dialect)) return false;
      if (!sentByKeeps(r, f.sentby)) return false;
      if (since !== null && (r.to || 0) < since) return false;
      if (until !== null && (r.from || 0) >= until + 86400000) return false;
      return true;
    }));
  }

  // The models chip's words when the summary names no model: the runtime's calls named none (Kiro CLI 3.x), as the
  // tokens chip says it, else none recorded (listing.models_unnamed; trial 27a F10: it read a bare '—').
  function modelsUnnamed(calls) { return calls > 0 ? WORDS.not_by_runtime : WORDS.none_recorded; }
  function tokens(u) {
    if (!u || typeof u !== 'object') return null;
    let t = 0, any = false;
    ['in', 'out', 'cache_read', 'cache_write'].forEach(function (k) { if (typeof u[k] === 'number') { t += u[k]; any = true; } });
    return any ? t : null;
  }
  function usd(c) {
    const x = exactUnits(c && typeof c === 'object' ? c.usd_exact : null);
    if (x !== null) return belowCent(unitsCents(x), x > BigInt(0));  // the exact amount rounded once to the cent, as asz ls and asz usage write a cost
    const v = (c && typeof c === 'object') ? c.usd : c;
    return typeof v === 'number' ? belowCent(Math.round(v * 100) / 100, v > 0) : '—';  // (docs/reading.md); the micro-dollar figure when no exact one
  }
  // A cost rounded to the cent (dollars), read as prices.money reads it: WORDS.below_cent (<$0.01) for an amount above
  // nothing that rounds to $0.00, so a small cost never reads as none (trial 32a F8)
  function belowCent(rounded, positive) { return rounded === 0 && positive ? WORDS.below_cent : cents(rounded); }
  // An exact amount of USD (usd_exact, cost_exact: a decimal text) in pico-dollars, a BigInt; null for no such text.
  function exactUnits(text) {
    const m = typeof text === 'string' ? /^(-?)(\d+)(?:\.(\d{1,12}))?$/.exec(text) : null;
    if (!m) return null;
    const v = BigInt(m[2] + ((m[3] || '') + '000000000000').slice(0, 12));
    return m[1] ? -v : v;
  }
  // Pico-dollars (a BigInt) to the cent, rounded once, half to even, as a number of dollars: the one rounding of a cost
  // the tables print (reviewG28: the micro-dollar figure rounded again read $0.12 for an exact $0.1250001).
  function unitsCents(units) {
    const per = BigInt(10000000000), half = BigInt(5000000000), neg = units < 0, a = neg ? -units : units;
    let c = a / per;
    const rest = a % per;
    if (rest > half || (rest === half && c % BigInt(2) === BigInt(1))) c += BigInt(1);
    return (neg ? -1 : 1) * Number(c) / 100;
  }
  function exactCents(text) { const u = exactUnits(text); return u === null ? null : unitsCents(u); }
  function writes(u) {  // cache writes, and the 1-hour part of them (priced at its own rate) when the records name one
    return num(u.cache_write) + (u.cache_write_1h ? ' (1-hour ' + num(u.cache_write_1h) + ')' : '');
  }
  function tokenTitle(u) {
    return u ? 'in ' + num(u.in) + ' · out ' + num(u.out) + ' · cache read ' + num(u.cache_read) + ' · cache write ' + writes(u) : null;
  }
  // The words of the ? line and of a conversation with no model call, served into this script from their one place
  // (asz_core/view/rate_words.py page_words), which asz usage's and asz ls's line under the table
  // (listing.unchecked_line) and asz conversation's tokens line (listing.unrecorded_text) print too.
  const WORDS = {/* rate_words.page_words() */};
  // No token count is recorded to read a figure from: model calls were made and the runtime wrote no token count for
  // any of them (Kiro, a LangSmith trace without usage), or no model call is recorded at all (a session of asz hook
  // records alone, no transcript landed): the page says so instead of drawing 0 tokens and $0 as if they had been
  // counted. rows.usage_unrecorded's rule: calls counted (0 too) and none with a token count, or credits metered (Kiro)
  // and no token count; a list row says it in its usage_recorded, which the server decided by that rule.
  // /api/usage's rows give their counts null where no call of them recorded one (trial 36a F1), as the list's rows do.
  function unrecorded(u, calls, metered) {
    const t = tokens(u);
    return (typeof calls === 'number' || typeof metered === 'number') && (t === 0 || (t === null && !!u && typeof u === 'object' && 'in' in u));
  }
  function rowUnrecorded(r) { return typeof r.usage_recorded === 'boolean' ? !r.usage_recorded : unrecorded(r.usage, r.llm_calls, r.credits); }
  const UNRECORDED = 'the runtime recorded no token counts for these model calls';
  const NO_CALL = WORDS.no_call + ' (no transcript landed, or none of its records is a model call)';
  const COUNTING = 'the server is still reading this conversation\'s model calls; the figure follows';
  // A conversation that does not verify: its tokens and cost are read from evidence that does not verify, so the
  // server gives them as null with held_back, and the page says so instead of a figure.
  function heldTitle(r) { return 'held back: this conversation does not verify (' + r.held_back.state + '); its tokens and cost are in no figure'; }

  // A row drawn again keeps its element, and each cell that did not change keeps its own: the list is drawn again
  // whenever figures or states fill in (minutes on a big root), and a row replaced under the pointer lost the
  // person's click (trial 4, F18).
  function keptRow(prev, tr) {
    if (!prev) return tr;
    if (prev.innerHTML === tr.innerHTML) return prev;
    if (prev.children.length !== tr.children.length) return tr;
    Array.from(tr.children).forEach(function (td, i) {
      const old = prev.children[i];
      if (old.outerHTML !== td.outerHTML) old.replaceWith(td);
    });
    return prev;
  }

  function drawRows() {
    const tb = document.getElementById('rows');
    if (!tb) return;
    const before = {};
    Array.from(tb.children).forEach(function (tr) { before[tr.getAttribute('data-id')] = tr; });
    const drawn = [];
    const rows = filteredRows();
    rows.forEach(function (r) {
      const dur = (r.from && r.to) ? fmtDur(r.to - r.from) : '';
      const models = rowModels(r);
      const cost = r.cost && typeof r.cost === 'object' && r.cost.unpriced && r.cost.unpriced.length ? ' + unpriced' : '';
      const none = noneUnpriced(r.cost);  // no call had a price: 'unpriced', as asz ls says it (trial 47c F7)
      const rated = r.cost && typeof r.cost === 'object' ? rateMarks(r.cost, false) : { marks: '', title: '' };
      const counting = function (cls) { return h('td', { class: cls + ' faint counting', title: COUNTING }, 'counting…'); };
      drawn.push(keptRow(before[r.id], h('tr', { 'data-id': r.id },
        h('td', null, h('a', { class: 'convtitle', href: withHide('/c/' + enc(r.id)) }, titleText(r.title || (r.counting ? 'counting…' : '(untitled)'))),
          r.project ? h('div', { class: 'small muted project', title: r.project }, r.project_label || r.project) :
            r.removed_files ? h('div', { class: 'small faint project' }, '(removed by retention)') : null,
          h('div', { class: 'mono faint' }, r.id), continuesLine(r.continues)),
        h('td', null, fmtTime(r.to), h('div', { class: 'faint small' }, dur ? 'lasted ' + dur : '')),
        r.counting ? counting('hide-narrow small') : models.length ? h('td', { class: 'hide-narrow small' }, models.join(', ')) :
          h('td', { class: 'hide-narrow small faint', title: modelsUnnamed(r.llm_calls) }, '—'),
        r.counting ? counting('num') : r.held_back ? h('td', { class: 'num faint held', title: heldTitle(r) }, 'held back') :
          rowUnrecorded(r) ? h('td', { class: 'num faint', title: r.llm_calls ? UNRECORDED : NO_CALL }, 'not recorded') :
          tokensCell(r),
        r.counting ? counting('num') : r.held_back ? h('td', { class: 'num faint held', title: heldTitle(r) }, 'held back') :
          rowUnrecorded(r) ? h('td', { class: 'num faint', title: r.llm_calls ? UNRECORDED : NO_CALL }, '—') :
          none ? h('td', { class: 'num faint', title: none }, 'unpriced') : h('td', rated.marks ? { class: 'num', title: rated.title } : { class: 'num' }, usd(r.cost) + cost + (rated.marks ? ' ' + rated.marks : '')),
        r.calls_unread && !r.talks ? unreadCell() : h('td', { class: 'num hide-narrow' }, num(r.talks)), callsCell(r),
        h('td', { class: 'num hide-narrow' }, num(r.steps)),
        rowRuntime(r) ? h('td', { class: 'hide-narrow small runtime' }, rowRuntime(r)) :
          r.counting ? counting('hide-narrow small runtime') : h('td', { class: 'hide-narrow small runtime faint', title: NO_RUNTIME }, '-'),
        sentBy() ? h('td', { class: 'hide-narrow small sent-by' }, (r.sent_by || '') + alsoHeld(r)) : null,
        h('td', null, rowState(r), stoppedBadge(r.conflicts), goneBadge(r.sources_gone), removedBadge(r.removed_files)))));
    });
    placeChildren(tb, drawn);
    drawNote();
    const partial = document.getElementById('list-partial');
    if (partial) partial.textContent = partialListLine(rows);
    sayNoMatch();
    const shown = document.getElementById('shown'), still = countingRows(), blind = unjudgedRows(rows);
    if (shown) shown.textContent = (rows.length === LIST.conversations.length ? num(rows.length) + ' conversation(s), ' + sortWords() + '.' :
      num(rows.length) + ' of ' + num(LIST.conversations.length) + ' conversation(s) match the filters, ' + sortWords() + '.') +
      (still ? ' ' + num(still) + ' still being counted: their models, tokens and cost follow (a filter by project or model leaves them out until then).' : '') +
      (blind.length ? ' ' + num(blind.length) + ' kept though the project or model filter cannot judge them: they do not verify, so their project or models are held back (' +
        blind.map(function (r) { return shortId(r.id); }).join(', ') + '; asz verify names the problems).' : '');
  }

  // ``parent``'s children made ``kids``, in order, moving only what is not in its place: a row that stays where it
  // was is never taken out, so the focus in it and the list's height stay (trial 28b, F1: replacing every row emptied
  // the table for a moment, the window scrolled to the top and focus fell to <body>).
  function placeChildren(parent, kids) {
    const keep = new Set(kids);
    Array.from(parent.children).forEach(function (c) { if (!keep.has(c)) c.remove(); });
    kids.forEach(function (k, i) { if (parent.children[i] !== k) parent.insertBefore(k, parent.children[i] || null); });
  }

  // In a root asz receive landed, the rows carry sent_by (the instance ids that sent each, asz ls's SENT BY; trial 28a F3):
  // a "Sent by" column then, none in a root that received nothing.
  // Who else sent every record of it (a copy refused as held whole; trial 45c F3), as asz conversation's sent-by line says.
  function alsoHeld(r) { return Array.isArray(r.also_held_by) && r.also_held_by.length ? ' (also held by ' + r.also_held_by.join(', ') + ')' : ''; }
  function sentBy() { return !!(LIST && LIST.conversations.some(function (r) { return r.sent_by !== undefined; })); }
  // The Sent by filter (#sentby=…): a sender the dropdown picks (its label) keeps the rows it sent; a value typed in
  // the address is matched as asz ls --instance matches it (storage/senders.py sender_matches): `credential NAME` keeps
  // the rows that credential sent, a label or a quoted id ("…") that sender, any other text is looked for inside an
  // instance id or a credential name; never inside a label's words (review34: an id holding "(credential alice)").
  function rowSenders(r) {
    if (Array.isArray(r.sent_by_senders)) return r.sent_by_senders;
    return (typeof r.sent_by === 'string' && r.sent_by ? r.sent_by.split(', ') : []).map(function (n) { return { label: n }; });
  }
  function sentByKeeps(r, value) {
    if (!value) return true;
    const senders = rowSenders(r), v = value.trim();
    if (senders.some(function (s) { return s.label === v; })) return true;
    const cred = /^\(?credential ([^\s()"]+)\)?$/.exec(v);
    if (cred) return senders.some(function (s) { return typeof s.credential === 'string' && folded(s.credential) === folded(cred[1]); });
    if (v.charAt(0) === '"' || / \(credential [^()]*\)$/.test(v)) {
      return senders.some(function (s) { return folded(s.label) === folded(v) || (typeof s.instance === 'string' && folded(JSON.stringify(s.instance)) === folded(v)); });
    }
    return senders.some(function (s) {
      return [s.instance, s.credential].some(function (x) { return typeof x === 'string' && folded(x).indexOf(folded(v)) >= 0; });
    });
  }
  const SENT_TITLE = 'the instance ids that sent it to this root (asz receive\'s sender record; asz ls: SENT BY)';

  // Model calls that are asz's grouping of the runtime's lines, the runtime recording no call id (calls_grouped: Kiro
  // CLI 3.x, trial 23a F15): marked as asz ls marks its CALLS (conversations_cmd.GROUPED_MARK), how in the tooltip.
  const GROUPED_MARK = WORDS.grouped_mark;
  // No call could be read while transcript records the dialect could not read may hold some (calls_unread: a Kiro
  // session in UTF-16, trial 23a F17): its 0 talks and 0 calls are not figures, read as not recorded (—), as asz ls's -.
  function unreadCell() { return h('td', { class: 'num hide-narrow faint unread', title: 'not recorded: ' + WORDS.no_call_read }, '—'); }
  function callsCell(r) {
    if (r.calls_unread) return unreadCell();
    return r.calls_grouped && r.llm_calls ? h('td', { class: 'num hide-narrow grouped', title: 'grouped by asz: ' + r.calls_grouped }, num(r.llm_calls) + ' ' + GROUPED_MARK)
      : h('td', { class: 'num hide-narrow' }, num(r.llm_calls));
  }

  // A figure some of whose model calls carry no token counts while others do (0 < calls_with_usage < calls: a runtime
  // writing none on some calls, trial 39b F3) counts the others only: marked as asz ls marks its TOKENS and asz usage
  // its rows (rate_words.calls_uncounted's rule, PARTIAL_MARK), how many in the tooltip and in a line under the table.
  const PARTIAL_MARK = WORDS.partial_mark;
  function callsUncounted(calls, withUsage) {
    return Number.isInteger(calls) && Number.isInteger(withUsage) && withUsage > 0 && withUsage < calls ? calls - withUsage : 0;
  }
  function partialText(n, calls) { return PARTIAL_MARK + ' ' + num(n) + ' of ' + num(calls) + ' ' + WORDS.partial_why + ': ' + WORDS.partial_only; }
  function tokensCell(r) {
    const n = callsUncounted(r.llm_calls, r.calls_with_usage), t = tokenTitle(r.usage);
    return n ? h('td', { class: 'num partial', title: t + ' · ' + partialText(n, r.llm_calls) }, num(tokens(r.usage)) + ' ' + PARTIAL_MARK)
      : h('td', { class: 'num', title: t }, num(tokens(r.usage)));
  }
  // The line under the list naming the rows marked PARTIAL_MARK (asz ls's line under its table): '' when none.
  function partialListLine(rows) {
    const some = rows.filter(function (r) { return !r.counting && !r.held_back && !rowUnrecorded(r) && callsUncounted(r.llm_calls, r.calls_with_usage); });
    if (!some.length) return '';
    const n = some.reduce(function (a, r) { return a + callsUncounted(r.llm_calls, r.calls_with_usage); }, 0);
    return partialText(n, some.reduce(function (a, r) { return a + r.llm_calls; }, 0)) + ': ' +
      some.map(function (r) { return shortId(r.id) + ' (' + num(callsUncounted(r.llm_calls, r.calls_with_usage)) + ' of ' + num(r.llm_calls) + ')'; }).join(', ') + '.';
  }

  // A resumed or copied session repeating another's message ids: its repeated records, their calls and tokens with
  // them, are drawn and counted in the conversation it continues, so its own row may read 0; said, as asz ls says it
  // under its table (trial 22b).
  function continuesLine(other) {
    if (!other) return null;
    return h('div', { class: 'small muted continues' }, 'continues ', h('a', { class: 'mono', href: withHide('/c/' + enc(other)) }, shortId(other)),
      ': the records it repeats, their calls and tokens with them, are counted there');
  }

  function sortWords() {
    const o = sortOrder();
    if (o[0] === 'last') return o[1] ? 'oldest first' : 'most recent first';
    if (o[0] === 'title') return 'by title, ' + (o[1] ? 'A to Z' : 'Z to A');
    return 'by ' + ({ tokens: 'tokens', cost: 'cost', talks: 'talks', calls: 'model calls', steps: 'steps' })[o[0]] + (o[1] ? ', smallest first' : ', largest first');
  }

  // Why a cost none of whose calls had a price reads 'unpriced' (cost.priced false, cost.unpriced naming the models:
  // listing.cost_text, never '$0.00 + unpriced', which reads as free; trial 47c F7); '' for any other cost.
  function noneUnpriced(c) {
    return c && typeof c === 'object' && c.priced === false && c.unpriced && c.unpriced.length
      ? 'no price for ' + c.unpriced.join(', ') + ': unpriced, left out of the cost (add them under prices in asz.yaml)' : '';
  }
  function costText(c) {
    if (!c || typeof c.usd !== 'number') return '';
    if (noneUnpriced(c)) return 'unpriced (no price for ' + c.unpriced.join(', ') + ')';  // asz conversation's words
    return usd(c) + (c.unpriced && c.unpriced.length ? ' + unpriced ' + c.unpriced.join(', ') : '') +
      (c.long_context_calls ? ' · ' + num(c.long_context_calls) + ' ' + LONG_MARK + ' call(s) at long-context rates' : '') +
      (c.rate_not_priced_calls ? ' · ' + RATE_MARK + ' ' + rateText(c.rate_not_priced_calls) : '') +
      (c.rate_not_checked_calls ? ' · ' + UNCHECKED_MARK + ' ' + uncheckedText(c.rate_not_checked_calls, false, c.hour_not_kept_calls) : '');
  }
  // A call run at a rate the price table does not hold (fast mode, a priority or batch tier, a data-residency region:
  // its record lists it under dropped), priced at standard rates: marked, as asz ls and asz usage mark it.
  const RATE_MARK = WORDS.rate_mark;
  // A call landed before asz looked at a call's rate (Claude Code before claude-code-local 0.3.0: its record cannot say
  // whether it ran in fast mode), priced at standard rates: marked ?, as asz ls and asz usage mark it.
  const UNCHECKED_MARK = WORDS.unchecked_mark;
  function uncheckedText(n, listed, hourless) {
    // listed: asz usage's line word for word, what the reader can do included; hourless: the calls whose records hold
    // cache writes and no 1-hour part (cost.hour_not_kept_calls), the 1-hour clause only for them (rate_words.unchecked_why)
    return num(n) + ' call(s) ' + WORDS.unchecked_lead + (hourless ? WORDS.hour_before + num(hourless) + WORDS.hour_after : '') +
      WORDS.unchecked_rest + (listed ? WORDS.unchecked_more : '');
  }
  // The marks after a cost (after + unpriced: listing.cost_marks' ^ then ?) of ``c``, anything counting
  // rate_not_priced_calls and rate_not_checked_calls, and what they say (each after its mark when ``marked``).
  function rateMarks(c, marked) {
    const r = c && c.rate_not_priced_calls, q = c && c.rate_not_checked_calls;
    const said = [r ? (marked ? RATE_MARK + ' ' : '') + rateText(r) : '', q ? (marked ? UNCHECKED_MARK + ' ' : '') + uncheckedText(q, false, c.hour_not_kept_calls) : ''];
    return { marks: (r ? RATE_MARK : '') + (q ? UNCHECKED_MARK : ''), title: said.filter(Boolean).join(' · ') };
  }
  // ``listed``: the words of asz usage's line under its table (asz_core/reading/listing.py rate_line), naming where the
  // records say it (under dropped) and that the figure is below what was billed
  function rateText(n, listed) {
    // rate_words.rate_text's words and order (WORDS: their one place)
    return num(n) + ' call(s) ' + WORDS.rate_why + (listed ? WORDS.rate_listed : '') + WORDS.rate_priced + (listed ? WORDS.rate_billed : '');
  }
  // A call whose input (in + cache read + cache write) is above 200K tokens, priced at its model's long-context rates
  // (asz_core/view/prices.py): marked, as asz usage counts them.
  const LONG_MARK = '>200K', LONG_TITLE = 'input above 200K tokens (cache reads and writes included): priced at its model\'s long-context rates where the model has them';
  const LONG_PRICED = 'priced at their model\'s long-context rates, their input above 200K tokens (cache reads and writes included)';
  function isLong(n) { return n.long_context === true || (n.requests || []).some(function (r) { return r.long_context === true; }); }

  // What the list's box says the server is still reading: all of /api/status's reading, but a re-check of rows every one
  // of which is listed (checking conversations: N of M done, nothing counted) only once it has lasted 2 s
  // (reading_for, ms): asz server re-checks the rows a pass changed in well under a second, and a tab open all day
  // said "Still reading" at nearly every poll while agents wrote (trial 42c F6). The API's reading stays exact.
  function readingShown(s) {
    const recheck = /^checking conversations: [\d,]+ of [\d,]+ done$/.test(s.reading || '') && !s.counting;
    return recheck && (s.reading_for || 0) < 2000 ? '' : (s.reading || '');
  }
  // What the server is still reading, said when it starts a new kind of work and when it ends (its words without their
  // counts: not at every count, which changes every second).
  let READING_SAID = null;
  function sayReading(s) {
    const kind = String(readingShown(s)).replace(/[\d,]+/g, '#');
    if (READING_SAID === null) { READING_SAID = kind; return; }  // the first screen shows it; nothing changed yet
    if (kind === READING_SAID) return;
    READING_SAID = kind;
    say(readingShown(s) ? 'Still reading: ' + s.reading + '. ' + readingWords(s) : 'The server has read every conversation.');
  }
  function statusLine(s) {
    const bits = [s.mode === 'server' ? 'collecting and serving' : 'serving (read only)'];
    if (s.source) bits.push('source ' + s.source);
    if (s.last_refresh) bits.push('last refresh ' + fmtTime(s.last_refresh));
    if (s.follows) bits.push('follows its sources (a pass about 1-2 s after a change)');
    if (s.next_refresh) bits.push((s.follows ? 'next at the latest ' : 'next ') + fmtTime(s.next_refresh));
    if (s.hide && s.hide.length) bits.push('withholds ' + s.hide.join(', '));
    return h('div', { id: 'status' }, h('p', { class: 'muted small' }, bits.join(' · ')),
      readingShown(s) ? h('p', { class: 'box notice small', id: 'reading' }, 'Still reading: ' + s.reading + '. ' + readingWords(s)) : null,
      tornBox(s.torn_tails || []));
  }
  // The sources the last collect pass found ending in a torn tail, as /api/status judges them now (the rule asz collect
  // judges by): not "still reading", which they kept the list at for ever (trial 40c F4). Each in asz collect's words.
  const TORN_SHOWN = 5;
  function tornBox(lines) {
    if (!lines.length) return null;
    const more = lines.length - TORN_SHOWN;
    return h('div', { class: 'box notice small', id: 'torn' },
      num(lines.length) + ' source(s) end in a torn tail: a last line with no newline that has not changed for the idle ' +
      'window. It is not landed; it lands once the line is completed, and asz sources lists it as UNREAD.',
      h('ul', null, lines.slice(0, TORN_SHOWN).map(function (t) { return h('li', { class: 'mono' }, t); }),
        more > 0 ? h('li', null, num(more) + ' more (asz sources lists each)') : null));
  }

  // ------------------------------------------------------------------ search

  // The asz search command that gets every hit (or, by conversation, every conversation) of the page's query with its
  // filters and root, quoted for a POSIX shell as asz_core/cli/search_cmd.py ``again`` quotes the CLI's hint.
  function searchCommand(f, byconv) {
    const words = ['asz', 'search'].concat(byconv ? ['--conversations'] : [], ['--limit', '0']);
    ['project', 'model', 'dialect', 'since', 'until'].forEach(function (k) { if (f[k]) words.push('--' + k, f[k]); });
    if (LIST && LIST.root) words.push('--root', LIST.root);
    if (f.q.charAt(0) === '-') words.push('--');
    words.push(f.q);
    return words.map(function (w) {
      return /^[A-Za-z0-9@%+=:,.\/_-]+$/.test(w) ? w : "'" + w.replace(/'/g, "'\"'\"'") + "'";
    }).join(' ');
  }

  // The page asks for SEARCH_FIRST hits, then (a button) up to SEARCH_MAX, /api/search's largest limit.
  const SEARCH_FIRST = 50, SEARCH_MAX = 500;
  let searchRuns = 0;  // each search's number: a retry of one the reader has since replaced draws nothing
  function runSearch(limit, tried) {
    limit = limit || SEARCH_FIRST;
    const f = listFilters(), out = clear(document.getElementById('hits')), mine = ++searchRuns;
    stopFill();
    if (!f.q) return;
    out.append(h('p', { class: 'faint' }, 'Searching…'));
    const byconv = f.by === 'conversation';
    const extra = ['q=' + enc(f.q), 'limit=' + limit, 'held_back=1'].concat(byconv ? ['conversations=1'] : []);
    ['project', 'model', 'dialect', 'since', 'until'].forEach(function (k) { if (f[k]) extra.push(k + '=' + enc(f[k])); });
    api('/api/search', extra.join('&')).then(function (res) {
      if (mine !== searchRuns) return;
      clear(out);
      // 503 busy: the server runs at most 4 searches at once (asz_core/view/at_once.py); asked once more after its
      // Retry-After seconds (1; at most 30), said meanwhile, then refused if still busy (review 40)
      if (!res.ok && res.status === 503 && res.body && res.body.code === 'busy' && !tried) {
        const wait = Math.min(Math.max(parseInt(res.retry, 10) || 1, 0), 30);
        out.append(h('p', { class: 'faint', id: 'search-busy' }, 'The server is answering as many searches as it runs at once: busy, trying again…'));
        setTimeout(function () { if (mine === searchRuns) runSearch(limit, true); }, wait * 1000);
        return;
      }
      if (!res.ok) { out.append(errorBox('The search was refused.', res)); return; }
      const hits = Array.isArray(res.data) ? res.data : (res.data && res.data.hits) || [];
      const held = (res.data && res.data.held_back) || { hits: 0, files: [] };
      // The query is shown as typed (a quoted phrase keeps its own quotes, once); a full page says it is the first ones,
      // of how many when the answer counts them (total, 10,000+ when total_capped; trial 48b F5: "There may be more"
      // beside "total": 148). The rest the button can fetch leaves out the hits held back (held_back.hits).
      const known = res.data && typeof res.data.total === 'number', capped = known && !!res.data.total_capped;
      const rest = known ? Math.max(res.data.total - (held.hits || 0) - hits.length, 0) : 0;
      const more = known ? hits.length >= limit && (rest > 0 || capped) : hits.length >= limit;
      const unit = byconv ? ' conversation' : ' hit', of = known ? ' of ' + num(res.data.total) + (capped ? '+' : '') : '';
      const moreWords = known ? num(rest) + (capped ? '+' : '') + ' more' : 'There may be more';
      out.append(h('h2', { id: 'hitcount' }, (more ? 'The first ' + num(hits.length) + of : num(hits.length)) + unit +
          (more || hits.length !== 1 ? 's' : '') + ' for ',
        h('code', { class: 'query' }, f.q),
        h('button', { class: 'btn', type: 'button', onclick: function () { setHash({ q: null }); document.getElementById('q').value = ''; clear(out); } }, 'Clear')));
      if (res.data && res.data.note) {  // the filters keep no conversation: said as asz search says it (trial 29b F3)
        out.append(h('p', { class: 'box notice small', id: 'searchnote' }, res.data.note));
      }
      if (more && limit < SEARCH_MAX) {
        const all = known && !capped && hits.length + rest <= SEARCH_MAX;
        out.append(h('p', { class: 'small', id: 'morehits' }, moreWords + '. ',
          h('button', { class: 'btn', type: 'button', onclick: function () { runSearch(SEARCH_MAX); } },
            all ? 'Show all ' + num(hits.length + rest) : 'Show up to ' + num(SEARCH_MAX))));
      } else if (more) {
        out.append(h('p', { class: 'small muted', id: 'morehits' }, moreWords + ': narrow the search with the filters, or run ',
          h('code', null, searchCommand(f, byconv)), '.'));
      }
      if (res.data && res.data.across) {  // no one text holds every word, but conversations do between their texts (trial 21)
        out.append(h('p', { class: 'box notice small', id: 'across' },
          'No one text holds every word, but ' + num(res.data.across) + ' conversation' + (res.data.across === 1 ? ' holds' : 's hold') +
          ' them all between their texts. ',
          h('button', { class: 'btn', type: 'button', onclick: function () { setHash({ by: 'conversation' }); document.getElementById('byconv').checked = true; runSearch(); } },
            'Show ' + (res.data.across === 1 ? 'it' : 'them'))));
      }
      if (res.data && res.data.first_pass) {  // asz server's first pass runs: the index as it stood (trial 50b F5)
        out.append(h('p', { class: 'box notice small', id: 'searchfirstpass' },
          h('strong', null, 'The first collect pass is still running: '), 'these hits are from the search index as it stood' +
          (res.data.partial ? ', which does not hold ' + num(res.data.indexing) + ' conversation' + (res.data.indexing === 1 ? '' : 's') + ' as they stand now' : '') +
          '; what the pass lands is searched once it ends. ',
          h('button', { class: 'btn', type: 'button', onclick: function () { runSearch(limit); } }, 'Search again')));
      } else if (res.data && res.data.partial) {  // another update (asz server's pass) is writing the index: what it committed so far
        out.append(h('p', { class: 'box notice small', id: 'searchpartial' },
          h('strong', null, 'Partial: '), num(res.data.indexing) + ' conversation' + (res.data.indexing === 1 ? ' is' : 's are') +
          ' still being indexed (a collect pass is updating the search index); these hits are from the others. ',
          h('button', { class: 'btn', type: 'button', onclick: function () { runSearch(limit); } }, 'Search again')));
      }
      if (held.hits || (held.files && held.files.length)) {  // left out: indexed from a landed file that no longer verifies
        // a file that verifies whose indexed rows differ from its records says so in its problem (asz_core/reading/search.py INDEX_DIFFERS)
        const stale = held.files.filter(function (f) { return / the search index does not hold what the record holds: /.test(f.problem); });
        const bad = held.files.filter(function (f) { return stale.indexOf(f) < 0; });
        const listed = function (files) {
          return files.map(function (f, i) { return [i ? '; ' : '', h('code', null, f.file), ' (' + num(f.hits) + ', ' + f.problem + ')']; });
        };
        out.append(h('div', { class: 'box error small', id: 'heldhits' },
          h('strong', null, num(held.hits) + ' hit' + (held.hits === 1 ? '' : 's') + ' held back: '),
          bad.length ? ['the landed file' + (bad.length === 1 ? '' : 's') + ' they were indexed from no longer verif' + (bad.length === 1 ? 'ies' : 'y') +
            ' (asz verify names the damage): ', listed(bad)] : '',
          stale.length ? [bad.length ? '; ' : '', 'the search index does not hold what the record' + (stale.length === 1 ? '' : 's') +
            ' they cite hold' + (stale.length === 1 ? 's' : '') + ': ', listed(stale)] : ''));
      }
      if (held.not_searched && held.not_searched.length) {  // what the index could not read: no count can be made, named instead
        out.append(h('div', { class: 'box error small', id: 'notsearched' },
          h('strong', null, 'Not searched: '),
          held.not_searched.map(function (g, i) { return [i ? '; ' : '', h('code', null, g.file), ' (' + g.problem + ')']; })));
      }
      const ul = h('ol', { class: 'hits' });
      const hitItem = function (x, title) {
        // the query rides in the fragment, which no browser sends: the server's log never holds it (trial 44b F1)
        const href = withHide('/c/' + enc(x.conversation)) + '#step=' + enc(x.step) + '&q=' + enc(f.q);
        return h('li', { class: 'hit', 'data-conversation': x.conversation, 'data-step': x.step },
          h('a', { class: 'hitlink', href: href }, title), ' ',
          h('span', { class: 'faint small' }, fmtTime(x.at) + ' · ' + x.step + (x.file ? ' · ' + x.file + ' row ' + x.row : '')
            + (x.sender !== undefined ? ' · sent by ' + (x.sender || '(no instance id)') : '')
            // a continuing session's copy of an earlier session's record: drawn and counted there (trial 30a F5)
            + (x.repeats ? ' · repeats ' + x.repeats + '\'s record (drawn and counted there)' : '')
            // bytes the dialect could not describe, searched as kept (kind undescribed: asz search's line; trial 47c F2)
            + (x.undescribed ? ' · undescribed record, searched as its kept bytes: ' + x.undescribed : '')),
          h('div', { class: 'snippet' }, marked_snippet(x)));
      };
      hits.forEach(function (x) {
        if (!byconv) { ul.append(hitItem(x, titleText(x.title || '(untitled)'))); return; }
        // a conversation row: its title, how many texts each word is in, then its best hit for each word
        ul.append(h('li', { class: 'convhit', 'data-conversation': x.conversation },
          h('a', { class: 'convlink', href: withHide('/c/' + enc(x.conversation)) }, titleText(x.title || '(untitled)')), ' ',
          h('span', { class: 'faint small' }, x.groups.map(function (g) { return g.query + ' ' + num(g.texts); }).join(' · ')),
          h('ol', { class: 'hits' }, x.hits.map(function (y) { return hitItem(y, y.kind); }))));
      });
      out.append(ul);
      say(document.getElementById('hitcount').textContent.replace(/Clear$/, '') + '.');
      restorePlace(true);  // back from a hit: the hit that was opened has focus again
    });
  }
  // A snippet is its text as the record has it (snippet_text) with each match (snippet_marks: [start, end) in code
  // points) drawn as a <mark> around a text node, never as markup; the text's own « and » stay what they are.
  function marked_snippet(x) {
    const chars = Array.from(String(x.snippet_text || '')), out = [];
    let at = 0;
    (x.snippet_marks || []).forEach(function (m) {
      out.push(chars.slice(at, m[0]).join(''), h('mark', null, chars.slice(m[0], m[1]).join('')));
      at = m[1];
    });
    out.push(chars.slice(at).join(''));
    return out;
  }

  // ------------------------------------------------------------------ usage per day

  // [key, name] of each kind of token; its colour is app.css's (svg.chart .s-KEY, .legend .sw.s-KEY), one per scheme,
  // each 3:1 or more against the chart's background (WCAG 1.4.11; tests/view_server/test_page_graphics_contrast.py)
  const TOKEN_KINDS = [['in', 'input'], ['out', 'output'], ['cache_write', 'cache write'], ['cache_read', 'cache read']];
  function localDay(ms) { const d = new Date(ms); return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()); }

  // the tooltip of a usage table's Total ! (its undescribed records, said in the line under it)
  const UNDESCRIBED_MARK = 'transcript records the dialect could not read: see the line under the table';
  const STOPPED_MARK = 'a source the collector no longer reads: its later lines are in no figure (see the stopped: line under the table)';
  let usageDrawn = 0;  // each drawing's number: a partial one redraws itself only while it is the panel's latest
  // The Usage tab's grouping beside the days (trial 28a F3): '' none, 'week' or 'month' (/api/usage's periods), or
  // 'instance' (its instances: cost by sender in a root asz receive landed)
  let usageBy = '';
  const USAGE_BY = [['', 'days only'], ['week', 'by week'], ['month', 'by month'], ['instance', 'by sender (instance)'],
    ['blocks', 'by 5-hour block']];
  function drawUsage(panel, again) {
    const mine = ++usageDrawn;
    if (!again) panel.append(h('p', { class: 'faint' }, 'Loading usage…'));
    // blocks: asz usage blocks' rows, asked apart (/api/usage/blocks); the others group /api/usage's own sums
    const query = usageQuery() + (usageBy && usageBy !== 'blocks' ? (usageQuery() ? '&' : '') + 'by=' + usageBy : '');
    api('/api/usage', query).then(function (res) {
      if (mine !== usageDrawn) return;
      clear(panel);
      if (!res.ok) { panel.append(errorBox('No usage.', res)); return; }
      const u = res.data, days = new Map(), held = u.held_back || [], undescribed = u.undescribed || [], stopped = u.stopped || [];
      // quarter hours: a local day in any zone in use (India +5:30, Nepal +5:45) is a sum of whole quarters; then
      // the calls with no time of their own the server placed on a day of this zone by their conversation's range
      (u.quarters || u.hours || []).concat(u.placed || []).forEach(function (x) {
        const k = x.day || localDay(x.at !== undefined ? x.at : x.hour);
        const d = days.get(k) || { in: 0, out: 0, cache_read: 0, cache_write: 0, cost: 0, priced: true, calls: 0, calls_with_usage: 0, long: 0,
          rate_not_priced_calls: 0, rate_not_checked_calls: 0, some_priced: false };
        if (x.priced !== false) d.some_priced = true;  // a bucket some token of which had a price (the server's row key)
        TOKEN_KINDS.forEach(function (t) { d[t[0]] += x[t[0]] || 0; });
        // each bucket's exact cost (cost_exact), so a day is its calls' cost rounded once, as asz usage rounds its rows
        if (typeof x.cost === 'number') {
          const e = exactUnits(x.cost_exact);  // added exactly (pico-dollars), rounded once to the cent when printed
          if (e !== null && d.units !== null) d.units = (d.units || BigInt(0)) + e; else d.units = null;
          d.cost += e !== null ? Number(x.cost_exact) : x.cost;
        } else d.priced = false;
        d.calls += x.calls || 0;
        d.calls_with_usage += x.calls_with_usage || 0;
        d.long += x.long_context_calls || 0;
        d.rate_not_priced_calls += x.rate_not_priced_calls || 0;
        d.rate_not_checked_calls += x.rate_not_checked_calls || 0;
        if (x.credits) d.credits = (d.credits || 0) + x.credits;  // what the runtime metered (Kiro): never tokens or USD
        if (x.unpriced) d.unpriced = (d.unpriced || []).concat(x.unpriced);  // this day's unpriced models only (F13)
        days.set(k, d);
      });
      const keys = Array.from(days.keys()).sort(), untimed = u.no_time || { calls: 0 }, total = u.total;
      if (u.complete === false) {  // the sums are partial while conversations are still read: said, and drawn again
        panel.append(h('p', { class: 'box notice small', id: 'usage-partial' }, h('strong', null, 'Partial totals: '),
          'conversations are still being counted (' + num(u.counted) + ' of ' + num(u.conversations) + ' so far), so these figures are too low until it is done; this view updates itself.'));
        setTimeout(function () { if (mine === usageDrawn && panel.querySelector('#usage-partial')) drawUsage(panel, true); }, 2000);
      }
      panel.append(h('p', { class: 'muted small', id: 'usage-note' }, usageFilterText(u.filters) + 'Tokens and cost of every model call, by the day it was made (your time zone, ' + tzName() + '). ' +
        'Read from ' + num(u.counted) + ' of ' + num(u.conversations) + ' conversation(s)' +
        // held_back names only those a since/until window does not leave wholly outside (review 40)
        (u.counted + held.length < u.conversations ? (u.complete === false ? ' (the rest are still being read)'
          : ' (the rest are in no figure: they do not read, or do not verify and hold nothing in this window)') : '') + '.' +
        (held.length ? ' Held back, in no figure (they do not verify): ' + held.map(function (x) { return (x.name || x.conversation) + ' (' + x.state + ')'; }).join(', ') + '.' : '') +
        (u.unpriced && u.unpriced.length ? ' Models without a price (their tokens count, their cost does not): ' + u.unpriced.join(', ') + '.' : '')));
      if (!keys.length && !untimed.calls && !untimed.credits) {  // a filter that keeps none is no 'yet' (trial 30b F6)
        const f = u.filters || {}, narrowed = f.project || f.model || (f.since !== null && f.since !== undefined) || (f.until !== null && f.until !== undefined);
        panel.append(h('p', { class: 'muted', id: 'usage-none' }, narrowed ? 'No model call matches the filters above.' : 'No model call with usage yet.'));
        return;
      }
      if (keys.length && total && unrecorded(total, total.calls, total.credits)) {  // no chart of zeros (trial 29c F4)
        panel.append(h('p', { class: 'muted small', id: 'usage-no-tokens' }, 'Tokens per day: not recorded (' + UNRECORDED + ').'));
      } else if (keys.length) {
        panel.append(h('h2', null, 'Tokens per day'), barChart(keys, days, TOKEN_KINDS, function (d) { return d.in + d.out + d.cache_read + d.cache_write; }, num));
        panel.append(h('div', { class: 'legend small' }, TOKEN_KINDS.map(function (t) { return h('span', null, h('i', { class: 'sw s-' + t[0] }), t[1]); })));
        // Cache reads are most of the tokens in most histories, and the other kinds are hairlines on their scale (trial
        // 21): where they are under a tenth of the tokens, the other kinds get a chart of their own, on their own scale
        const rest = TOKEN_KINDS.filter(function (t) { return t[0] !== 'cache_read'; });
        const restOf = function (d) { return d.in + d.out + d.cache_write; };
        const sums = keys.reduce(function (a, k) { const d = days.get(k); return [a[0] + restOf(d), a[1] + restOf(d) + d.cache_read]; }, [0, 0]);
        if (sums[0] > 0 && sums[0] * 10 < sums[1]) {
          const c = barChart(keys, days, rest, restOf, num);
          c.id = 'usage-without-cache-reads';
          panel.append(h('h2', null, 'Input, output and cache writes per day (without cache reads)'), c);
        }
        if (u.priced) panel.append(h('h2', null, 'Cost per day (USD)'), barChart(keys, days, [['cost', 'cost']], function (d) { return d.cost; }, cents));
      }
      // /api/usage's priced is false when no token counted had a price, as asz usage --json's total.cost.priced
      // (trial 29c F4: it was true with a $0 cost where the runtime recorded no token count): said why, never $0
      // (null while the sums are partial and nothing counted so far had a price: not known yet, trial 30b F9)
      if (u.priced === false) panel.append(h('p', { class: 'muted small', id: 'usage-no-cost' }, 'No cost is shown: ' +
        (total && unrecorded(total, total.calls, total.credits) ? 'the runtime recorded no token counts for these model calls (it metered credits), so there is nothing to price.'
          : u.unpriced && u.unpriced.length ? 'no model here has a price in the price table (add them under prices in asz.yaml).'
            : 'no token counted here had a price.')));
      // to the cent, as asz usage prints it, and its marks (+ unpriced where ``d``'s own calls hold a model with no
      // price, the server's cost_of rule per row as asz usage marks a row, trial 23a F13; ^ and ? as ``d`` counts calls
      // at a rate the price table does not hold or not checked: rateMarks); the exact figure in the tooltip (trial 4,
      // F10), and what they say
      function costCell(c, d) {
        const m = rateMarks(d, true), more = d.unpriced && d.unpriced.length ? ' + unpriced' : '';
        const models = more ? Array.from(new Set(d.unpriced)).sort() : [];  // the row's unpriced models, each once
        // no call of the row had a price, models naming none: 'unpriced', as asz usage's row says it (listing.cost_text),
        // never '$0.00 + unpriced', read as free (fix47j; the list's and header's words since ae78e335)
        if (more && u.priced !== null && (d.some_priced === false || d.priced === false)) {
          return h('span', { class: 'faint', title: noneUnpriced({ priced: false, unpriced: models }) }, 'unpriced');
        }
        // to the cent from the exact amount, rounded once: a day's summed units, a server row's cost_exact
        const once = typeof d.units === 'bigint' ? unitsCents(d.units) : exactCents(d.cost_exact);
        return u.priced && typeof c === 'number' ? h('span', { title: '$' + c.toFixed(6) + (more ? ' · without the cost of ' + models.join(', ') : '') + (m.title ? ' · ' + m.title : '') },
          belowCent(once !== null ? once : Math.round(c * 100) / 100, c > 0) + more + m.marks) : '—';
      }
      function callsCell(calls, long) {  // calls, and how many of them were priced at long-context rates, marked
        return long ? h('span', null, num(calls) + ' ', h('span', { class: 'long', title: num(long) + ' call(s) ' + LONG_PRICED }, num(long) + ' ' + LONG_MARK)) : num(calls);
      }
      // Credits the runtime metered (Kiro), in its own unit: a column of their own, only when some were recorded
      const metered = !!(total && total.credits);
      function creditsCell(d) { return d.credits ? h('span', { title: d.credits.toFixed(6) + ' ' + CREDITS }, credits(d.credits)) : h('span', { class: 'faint' }, '—'); }
      function line(label, d) {
        const part = callsUncounted(d.calls, d.calls_with_usage);  // marked + as asz usage marks its row key (F3)
        if (part) label = h('span', { class: 'partial', title: partialText(part, d.calls) }, label, ' ' + PARTIAL_MARK);
        const calls = callsCell(d.calls, d.long !== undefined ? d.long : d.long_context_calls);
        const extra = metered ? [creditsCell(d)] : [];
        if (unrecorded(d, d.calls, d.credits)) {  // calls with no token count at all (Kiro), or a record's credits
          // alone (the one rule, rows.usage_unrecorded's): said, never 0 tokens and $0, as the list says it
          const nr = function () { return h('span', { class: 'faint', title: UNRECORDED }, 'not recorded'); };
          return [label, calls, nr(), nr(), nr(), nr(), h('span', { class: 'faint', title: UNRECORDED }, '—')].concat(extra);
        }
        return [label, calls, num(d.in), num(d.out), num(d.cache_write), num(d.cache_read),
          costCell(d.cost, d)].concat(extra);
      }
      const heads = ['Model calls', 'Input', 'Output', 'Cache write', 'Cache read', 'Cost'].concat(metered ? ['Credits'] : []);
      const aligns = [0, 1, 1, 1, 1, 1, 1].concat(metered ? [1] : []);
      const rows = keys.map(function (k) { return line(k, days.get(k)); });
      if (untimed.calls || untimed.credits) rows.push(line('(no time)', untimed));
      // while conversations are still counted the total's cost is not known yet (null, trial 30b F9): the row says
      // what the calls counted so far cost, as what it is
      if (total && total.cost === null && typeof total.cost_so_far === 'number') {
        rows.push(line(h('strong', { title: total.cost_unknown || '' }, 'Total so far'),
          Object.assign({}, total, { cost: total.cost_so_far, cost_exact: total.cost_exact_so_far })));
      } else if (total) rows.push(line(h('strong', null, 'Total', undescribed.length || stopped.length ? h('span', { class: 'held', id: 'usage-total-mark', title: undescribed.length ? UNDESCRIBED_MARK : STOPPED_MARK }, ' !') : ''), total));
      const dayTable = table(['Day'].concat(heads), rows, aligns);
      dayTable.id = 'usage-days';
      panel.append(dayTable);
      // asz usage daily's own line, as the server says it (undescribed_said: usage_undescribed.undescribed_said; fix40o)
      if (u.undescribed_said) panel.append(h('p', { class: 'muted small', id: 'usage-undescribed' }, u.undescribed_said));
      // asz usage's stopped: lines, as the server says them: a source no longer read, its later lines in no figure (46a F1)
      (u.stopped_said || []).forEach(function (t) { panel.append(h('p', { class: 'muted small usage-stopped' }, t)); });
      const uncounted = total ? callsUncounted(total.calls, total.calls_with_usage) : 0;
      if (uncounted) {  // asz usage's line under its table (rate_words.partial_line), the rows being those marked above
        panel.append(h('p', { class: 'muted small', id: 'usage-uncounted' }, partialText(uncounted, total.calls) + '.'));
      }
      const pick = h('select', { id: 'usage-by', 'aria-label': 'Cost grouped' }, USAGE_BY.map(function (o) {
        const opt = h('option', { value: o[0] }, o[1]); if (o[0] === usageBy) opt.selected = true; return opt; }));
      pick.addEventListener('change', function () { usageBy = pick.value; drawUsage(clear(panel)); });
      panel.append(h('p', { class: 'small' }, h('label', null, 'Also show the figures ', pick)));
      if (u.periods) {  // the server's sums per week or month in this page's zone, the exact costs rounded once
        const by = u.filters && u.filters.by === 'week' ? 'Week (from Monday)' : 'Month';
        const pt = table([by].concat(heads), u.periods.map(function (p) { return line(p.period, p); }), aligns);
        pt.id = 'usage-periods';
        panel.append(h('h2', null, by === 'Month' ? 'By month' : 'By week'), pt);
        // asz usage weekly's or monthly's own line under it, as the server says it (periods_undescribed_said; fix41b)
        if (u.periods_undescribed_said) panel.append(h('p', { class: 'muted small', id: 'usage-periods-undescribed' }, u.periods_undescribed_said));
      }
      if (usageBy === 'blocks') drawBlocks(panel, mine, heads, aligns, line);
      if (u.instances) {  // cost by the instance that sent it (asz usage instance's rows)
        const it = table(['Sent by'].concat(heads), u.instances.map(function (r) { return line(r.instance, r); }), aligns);
        it.id = 'usage-instances';
        panel.append(h('h2', null, 'By sender'), it);
      }
      if (untimed.calls || untimed.credits) {
        panel.append(h('p', { class: 'muted small', id: 'usage-no-time' }, '(no time): ' + num(untimed.calls) + ' call(s) whose day is not known, their records carry no time (Kiro CLI 2.x, for one, writes none on a model reply), and their conversation\'s recorded range is not within one day, so they are in no day and no chart, and in the total: ' +
          (untimed.conversations || []).map(function (x) { return (x.name || x.conversation) + ' (' + num(x.calls) + ' call(s)' + (x.credits ? ', ' + credits(x.credits) + ' credits' : '') + ')'; }).join(', ') + '.'));
      }
      if (metered) {  // named apart from the tokens and the cost: a runtime's own unit (trial 15, F14)
        panel.append(h('p', { class: 'muted small', id: 'usage-credits' }, 'Credits: ' + CREDITS + ', ' + credits(total.credits) +
          ' in all, on the day of the record that metered them: ' + (u.credits || []).map(function (x) { return (x.name || x.conversation) + ' ' + credits(x.credits); }).join(', ') + '.'));
      }
      // a provider call two conversations hold (a fork, an import, a copy under a new id) is in every figure above once,
      // under the one whose copy counts the most output tokens, then the one that made it first (usage_once.COUNTED_UNDER): asz usage's line under its table (trial 35a F5; /api/usage's same_calls)
      const nameOf = {};
      (u.same_calls || []).forEach(function (s) { nameOf[s.conversation] = s.name || s.conversation; });
      const same = (u.same_calls || []).filter(function (s) { return Object.keys(s.counted_in || {}).length; });
      if (same.length) {
        const n = same.reduce(function (a, s) { return a + Object.keys(s.counted_in).reduce(function (b, o) { return b + s.counted_in[o]; }, 0); }, 0);
        const outside = (u.same_calls || []).reduce(function (a, s) { return a + (s.outside || 0); }, 0);
        panel.append(h('p', { class: 'muted small', id: 'usage-same-calls' }, num(n) + ' model call(s) that two conversations or more hold (the same call id and request id: a fork, an import or a copy under a new session id) are counted once, under the conversation whose copy counts the most output tokens, then the one that made them first: ' +
          same.map(function (s) { return nameOf[s.conversation] + '\'s ' + Object.keys(s.counted_in).map(function (o) { return num(s.counted_in[o]) + ' under ' + (nameOf[o] || o); }).join(', '); }).join('; ') +
          (outside ? '; ' + num(outside) + ' of them counted under a copy made outside the since/until window, so in no row of it, as the figures without the window place them' : '') +  // usage_lines._outside (trial 48d F2)
          '. The list gives each conversation its own figure, so its rows add up to more.'));
      }
      // credits a runtime metered that two conversations hold (the same record or turn: a copy), counted once (fix37a)
      const sameCredits = (u.same_calls || []).filter(function (s) { return Object.keys(s.credits_counted_in || {}).length; });
      if (sameCredits.length) {
        const c = sameCredits.reduce(function (a, s) { return a + Object.keys(s.credits_counted_in).reduce(function (b, o) { return b + s.credits_counted_in[o]; }, 0); }, 0);
        panel.append(h('p', { class: 'muted small', id: 'usage-same-credits' }, credits(c) + ' credits that two conversations or more hold (the same metering: the record that added them or the turn they were metered for, its message ids; a session copied under a new id) are counted once, under the one that metered them first: ' +
          sameCredits.map(function (s) { return nameOf[s.conversation] + '\'s ' + Object.keys(s.credits_counted_in).map(function (o) { return credits(s.credits_counted_in[o]) + ' under ' + (nameOf[o] || o); }).join(', '); }).join('; ') + '.'));
      }
      if (total && total.long_context_calls) {
        panel.append(h('p', { class: 'muted small', id: 'usage-long' }, num(total.long_context_calls) + ' call(s) marked ' + LONG_MARK + ': ' + LONG_PRICED + '.'));
      }
      if (total && total.rate_not_priced_calls) {  // asz usage's line under its table (asz_core/reading/listing.py rate_line)
        panel.append(h('p', { class: 'muted small', id: 'usage-rate' }, RATE_MARK + ' ' + rateText(total.rate_not_priced_calls, true) + '.'));
      }
      if (total && total.rate_not_checked_calls) {  // asz usage's line (asz_core/reading/listing.py unchecked_line)
        panel.append(h('p', { class: 'muted small', id: 'usage-unchecked' }, UNCHECKED_MARK + ' ' + uncheckedText(total.rate_not_checked_calls, true, total.hour_not_kept_calls) + '.'));
      }
      if (total && total.hour_above_whole_calls) {  // asz usage's line (listing.hour_over_line; rate_words.HOUR_OVER_SAID)
        panel.append(h('p', { class: 'muted small', id: 'usage-hour-over' }, num(total.hour_above_whole_calls) + ' ' + WORDS.hour_over_said + '.'));
      }
      if (total && total.replays_folded) {  // asz usage's line (listing.replays_line; rate_words.REPLAYS_SAID)
        panel.append(h('p', { class: 'muted small', id: 'usage-replays' }, num(total.replays_folded) + ' ' + WORDS.replays_said + ' (' + WORDS.replays_why + ').'));
      }
      if (u.models && u.models.length) {
        const byModel = table(['Model'].concat(heads), u.models.map(function (m) { const r = line(m.model, m); if ((u.unpriced || []).indexOf(m.model) >= 0) r[6] = 'unpriced'; return r; }), aligns);
        byModel.id = 'usage-models';
        panel.append(h('h2', null, 'By model'), byModel);
      }
    });
  }
  // The 5-hour blocks (trial 30b F8): asz usage blocks' own rows for the filters above (/api/usage/blocks), drawn as
  // the other usage tables (``line``: drawUsage's row of cells); an open block's burn rate and projection said under it
  const BLOCKS_WHY = 'A block is the 5-hour window a Claude subscription\'s limits reset in, estimated from the calls\' own times as ccusage does (asz usage blocks): it starts at its first call\'s hour (UTC) and holds the calls made less than 5 hours after that and after the call before; every call of the root shapes the blocks, whatever the filters keep.';
  function drawBlocks(panel, mine, heads, aligns, line) {
    const wrap = h('div', { id: 'usage-blocks-wrap' }, h('p', { class: 'faint' }, 'Loading 5-hour blocks…'));
    panel.append(h('h2', null, 'By 5-hour block'), wrap);
    api('/api/usage/blocks', usageQuery()).then(function (res) {
      if (mine !== usageDrawn) return;
      clear(wrap);
      if (!res.ok) { wrap.append(errorBox('No 5-hour blocks.', res)); return; }
      const b = res.data;
      // a row whose calls recorded no token count (null, never 0): drawn "not recorded" by line's rule
      const flat = function (r) { return r.in === null ? Object.assign({}, r, { in: 0, out: 0, cache_read: 0, cache_write: 0 }) : r; };
      const rows = b.blocks.map(function (r) { return line(r.block + (r.active ? ' (open)' : ''), flat(r)); });
      rows.push(line(h('strong', null, 'Total', (b.undescribed || []).length ? h('span', { class: 'held', id: 'usage-blocks-total-mark', title: UNDESCRIBED_MARK }, ' !') : ''), flat(b.total)));
      const bt = table(['Block (start, ' + (b.tz || tzName()) + ')'].concat(heads), rows, aligns);
      bt.id = 'usage-blocks';
      wrap.append(h('p', { class: 'muted small' }, BLOCKS_WHY), bt);
      // asz usage blocks' own line, as the server says it (fix40o)
      if (b.undescribed_said) wrap.append(h('p', { class: 'muted small', id: 'usage-blocks-undescribed' }, b.undescribed_said));
      // the rows marked + by line's rule (calls_with_usage, session 40), said under the table as under the day table
      const uncounted = callsUncounted(b.total.calls, b.total.calls_with_usage);
      if (uncounted) wrap.append(h('p', { class: 'muted small', id: 'usage-blocks-uncounted' }, partialText(uncounted, b.total.calls) + '.'));
      b.blocks.forEach(function (r) {
        if (!r.active || !r.burn_rate) return;
        wrap.append(h('p', { class: 'muted small usage-block-open' }, 'Block ' + r.block + ' is open until ' + new Date(r.end).toLocaleString() +
          ': at its rate from its first call to its last (' + num(r.burn_rate.tokens_per_hour) + ' tokens, ' + cents(r.burn_rate.usd_per_hour) +
          ' an hour) it will have counted ' + num(r.projection.tokens) + ' tokens, ' + cents(r.projection.usd) + ', at its end.'));
      });
      if (b.problems && b.problems.length) wrap.append(h('p', { class: 'muted small' }, 'Held back, in no block (they do not verify or do not read): ' + b.problems.join('; ')));
    });
  }
  // Dollars to the cent, grouped as en-US writes them, with no Intl formatter: a conversation's first screen makes
  // none (tests/view_server/test_page_zone_names.py: the first one a page makes starts ICU)
  function cents(v) {
    const c = Math.round(Math.abs(v) * 100), frac = c % 100;
    return (v < 0 && c ? '-' : '') + '$' + num(Math.floor(c / 100)) + '.' + (frac < 10 ? '0' : '') + frac;
  }
  // Credits to 3 decimals, as asz usage and asz ls print them (asz_core.reading.listing.credits_text)
  function credits(v) { return v.toLocaleString('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 }); }
  const CREDITS = 'what the runtime metered, in its own unit: not tokens, not USD';
  function compact(v, fmt) {
    try { return (fmt === num ? '' : '$') + new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }).format(v); } catch (e) { return fmt(v); }
  }
  function tzName() { try { return Intl.DateTimeFormat().resolvedOptions().timeZone || 'local'; } catch (e) { return 'local'; } }

  // A bar chart in plain SVG: one bar per day, stacked by ``series`` ([key, label, colour]); the tallest bar fills the height.
  // The x axis is time (trial 4, F10): each day ``keys`` names (YYYY-MM-DD, sorted) sits at its distance from the first,
  // so days with no call leave their gap; labels are drawn where they do not overlap the one before.
  const MIN_BAR = 6;  // the narrowest bar a day with calls gets, in the chart's units (900 across)
  function dayNumber(k) { return Math.round(Date.UTC(+k.slice(0, 4), +k.slice(5, 7) - 1, +k.slice(8, 10)) / 86400000); }
  function barChart(keys, days, series, total, fmt) {
    const NS = 'http://www.w3.org/2000/svg', W = 900, H = 220, L = 64, B = 40, T = 10;
    const max = Math.max.apply(null, keys.map(function (k) { return total(days.get(k)); }).concat([0])) || 1;
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H); svg.setAttribute('class', 'chart'); svg.setAttribute('role', 'img');
    function el(tag, attrs, text) { const e = document.createElementNS(NS, tag); Object.keys(attrs).forEach(function (a) { e.setAttribute(a, attrs[a]); }); if (text !== undefined) e.textContent = text; svg.append(e); return e; }
    const first = keys.length ? dayNumber(keys[0]) : 0, span = keys.length ? dayNumber(keys[keys.length - 1]) - first + 1 : 1;
    const bw = (W - L - 10) / span, years = keys.length && keys[0].slice(0, 4) !== keys[keys.length - 1].slice(0, 4);
    let lastLabel = -Infinity;
    [0, 0.5, 1].forEach(function (f) {
      const y = T + (H - T - B) * (1 - f);
      el('line', { x1: L, x2: W - 10, y1: y, y2: y, class: 'grid' });
      el('text', { x: L - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, compact(max * f, fmt));
    });
    keys.forEach(function (k, i) {
      const d = days.get(k), x = L + (dayNumber(k) - first) * bw;
      // A day's bar is its day wide, and at least MIN_BAR wide where the next day with a bar leaves room (trial 21: on
      // ten months each day was a 1-unit hairline); it never reaches into the next bar nor past the chart's edge
      const room = (i + 1 < keys.length ? (dayNumber(keys[i + 1]) - dayNumber(k)) * bw : W - x) - 1;  // the last: into the margin
      const width = Math.max(1, bw - 2, Math.min(MIN_BAR, room));
      let y = H - B;  // the top of the day's bars drawn so far
      series.forEach(function (s) {
        const v = d[s[0]] || 0, hgt = (H - T - B) * v / max;
        if (hgt <= 0) return;
        // a gap of the chart's background under a bar stacked on another, so no two colours meet: each needs 3:1
        // against the background alone (WCAG 1.4.11); a bar thinner than the gap keeps a sliver of half a unit
        const gap = y < H - B ? 1 : 0, tall = Math.max(hgt - gap, 0.5);
        const r = el('rect', { x: x + Math.min(1, bw / 4), y: y - gap - tall, width: width, height: tall, class: 's-' + s[0], 'data-day': k });
        r.append(document.createElementNS(NS, 'title'));
        r.lastChild.textContent = k + ' · ' + s[1] + ': ' + fmt(v);
        y -= gap + tall;
      });
      const label = years ? k : k.slice(5), cx = x + bw / 2;
      const past = cx + label.length * 3.5 > W;  // the last label ends at the edge rather than past it
      if (cx - lastLabel >= label.length * 7 + 6) { el('text', { x: past ? W - 2 : cx, y: H - B + 14, 'text-anchor': past ? 'end' : 'middle', class: 'axis', 'data-day': k }, label); lastLabel = cx; }
    });
    return h('div', { class: 'chartwrap' }, svg);
  }

  // ------------------------------------------------------------------ conversation page

  let D = null;          // the document
  let IDX = null;        // indexes over it
  let CID = '';

  function hashParams() {
    const out = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (p) {
      if (!p) return;
      const i = p.indexOf('=');
      try { out[decodeURIComponent(i < 0 ? p : p.slice(0, i))] = i < 0 ? '' : decodeURIComponent(p.slice(i + 1)); } catch (e) { /* ignore */ }
    });
    return out;
  }
  function setHash(params) {
    const cur = hashParams();
    Object.keys(params).forEach(function (k) { if (params[k] === null) delete cur[k]; else cur[k] = params[k]; });
    const s = Object.keys(cur).map(function (k) { return enc(k) + '=' + enc(cur[k]); }).join('&');
    history.replaceState(null, '', location.pathname + location.search + (s ? '#' + s : ''));
  }

  function conversationPage(id) {
    CID = id;
    skipTo('Skip to the talks');
    TZ_GUESS = /^en\b/i.test(navigator.language || '');  // until checkFormats, once the first screen is painted
    document.title = id + ' · asz view';
    add(clear(app), h('p', { class: 'muted' }, 'Loading the conversation…'));
    // the headings asked at the same time: the server builds the document once for both (one build lock a document)
    const heads = loadHeadings();
    api('/api/c/' + enc(id) + '/view', '', true).then(function (res) {
      clear(app);
      add(app, h('p', { class: 'small' }, h('a', { href: withHide('/') }, '← Conversations')));
      if (!res.ok) {
        TZ_GUESS = false;
        add(app, h('h1', { class: 'mono' }, id));
        add(app, errorBox(res.status === 404 ? 'No such conversation here.' : 'The server refused the document.', res));
        add(app, idChoices(res.body));
        return;
      }
      const hp = hashParams();
      Promise.all([heads, hp.step || hp.talk ? loadMarked() : null]).then(function () {  // a step shown opens its talk
        drawDocument(res.data);
        if (hp.step || hp.talk) revealHash(hp);
        ETAG = res.etag || '';
        if (!docTimer) docTimer = setInterval(pollDocument, 5000);
        requestAnimationFrame(function () { setTimeout(function () { loadMarked(); checkFormats(); }, 0); });  // once the first screen is painted: no closed talk needs them
      });
    });
  }

  // An id prefix several conversations start with (HTTP 400): each of them as a link (trial 24b F5: plain text).
  function idChoices(body) {
    const ids = body && Array.isArray(body.matches) ? body.matches : [];
    if (!ids.length) return null;
    const more = (body.matched || ids.length) - ids.length;
    return h('div', { class: 'box', id: 'idchoices' }, h('p', null, 'Open one of them:'),
      h('ul', null, ids.map(function (c) { return h('li', null, h('a', { class: 'mono', href: withHide('/c/' + enc(c)) }, c)); })),
      more > 0 ? h('p', { class: 'muted' }, 'and ' + more + ' more: type more of the id') : null);
  }

  function drawDocument(doc) {
    stopFill();  // its lists are drawn anew (redraw keeps the pages shown)
    D = doc;
    IDX = index(D);
    const back = app.firstChild;
    clear(app);
    add(app, back);
    drawHeader();
    drawTabs();
    showTab(hashParams().tab || 'talks');
    const box = document.getElementById('problems');  // reached from the list's '!' mark: shown once, on the first draw
    if (box && !PROBLEMS_SHOWN && 'problems' in hashParams()) box.scrollIntoView();
    PROBLEMS_SHOWN = true;
  }
  let PROBLEMS_SHOWN = false;

  // An open conversation follows new rounds: the document is asked for again every 5 s with its ETag (304 when
  // nothing changed); a new one is drawn again keeping the open talks, the tab and the scroll position.
  let ETAG = '', docTimer = null;
  // Each talk's heading as the server reads its label (/api/c/{id}/headings: Claude Code's command markup read as
  // /context, a bash-mode command's output alone as its command); a talk it does not name shows its label as the
  // document holds it. BLOCKS: the steps the server reads as a command and its output (step id -> [[kind, text]]).
  // PLACES: where each loose node is drawn in a talk (node id -> {talk, parent, before}: among parent's children,
  // before the child "before", null at the end); REPEATS: a subagent's output that repeats its last message (output id
  // -> [message ids]); ASKED: talk id -> the injection that is what the talk was asked (an old sidechain's prompt);
  // LINES: the adapter's short form of a runtime's own record (a compaction boundary, a notice: titles.SHORT_FORM_KINDS),
  // drawn as its row's line. The exports' rules (asz_core/view/placing.py).
  // PROMPTS: talk id -> {text, from}: what the call that started a subagent asked it, whole, when its own records hold
  // no prompt (Claude Code 2.0.x agent files). COMPACTIONS: stream name -> boundary id: the compaction agent's stream
  // (no call starts it) and the compaction it made, drawn in its talk: its spawn_of_child entry is shown as placed.
  // REPORTS: call step id -> {output, talk, rest}: a call whose result is its subagent's report (the text of that
  // agent.output, drawn in the subagent's talk) and what follows it. ASKS: call step id -> {talk, key}: a call whose
  // input's key holds what its subagent's talk was asked, drawn there (the call's input names it instead). GISTS: call
  // step id -> what the adapter says the call acts on (placing.call_summary: Kiro's write reads 'create /w/notes.md').
  // CREDS: talk id -> {credentials, owner}: a talk whose records came to the receiver with a credential other than the
  // one that sent the session's first file (asz_core/view/talk_senders.py), marked on the talk (credMark).
  // UNRES: the server's split of the document's unresolved entries (placing.unresolved_split: {open, placed, resolved}
  // ids), the one definition asz conversation's "N still open" reads too (trial 30d F3); null until the headings came.
  // SENT: asz conversation's senders line (headings' sent_by): who sent the conversation to this receiving root.
  let SENT = '';
  // SECRETS: what the server says of the credentials it serves (headings' secrets: {shown, places}; page_secrets.py).
  let SECRETS = null;
  // COSTS: node id -> {text, usd_exact, unpriced}: what each model call and each talk's calls cost, priced as asz usage
  // prices them (step_words.page_costs: '<$0.01', 'unpriced (no price for MODEL)', never $0.00); NOTICE_LABELS: step id
  // -> what a runtime's notice is where its adapter reads its words ('Interrupted by the person': step_words.notice_label).
  let COSTS = {}, NOTICE_LABELS = {};
  let HEADINGS = {}, BLOCKS = {}, PLACES = {}, REPEATS = {}, ASKED = {}, LINES = {}, PROMPTS = {}, COMPACTIONS = {}, REPORTS = {}, ASKS = {}, GISTS = {}, CREDS = {}, UNRES = null;
  // DRAWN: tool step id -> {todos} | {diff} | {write}: a todo list, an edit, a file written as the exports draw them
  // (asz_core/view/tool_drawn.py, the one reading; a clipped input read whole by the server; trial 43c F4, F7).
  let DRAWN = {};
  // REPLAYS: talk id -> {calls, talks}: a subagent's talk that holds only copies of its parent's model calls, drawn
  // once in the talks named (asz_core/view/replay_talks.py, the exports' rule), said in its header as md and html say it.
  let REPLAYS = {};
  function loadHeadings() {
    return api('/api/c/' + enc(CID) + '/headings', '', true).then(function (r) {
      const d = (r.ok && r.data) || {};
      HEADINGS = d.headings || {};
      BLOCKS = d.blocks || {};
      PLACES = d.places || {};
      REPEATS = d.repeats || {};
      LINES = d.lines || {};
      PROMPTS = d.prompts || {};
      COMPACTIONS = d.compactions || {};
      REPORTS = d.reports || {};
      ASKS = d.asks || {};
      GISTS = d.gists || {};
      DRAWN = d.drawn || {};
      REPLAYS = d.replays || {};
      COSTS = d.costs || {};
      NOTICE_LABELS = d.labels || {};
      SHOWN_IDS = Object.assign(SHOWN_IDS, d.shown_ids || {});
      CREDS = d.credentials || {};
      SENT = d.sent_by || '';
      SECRETS = d.secrets || null;
      UNRES = d.unresolved || null;
      ASKED = {};
      Object.keys(d.asked || {}).forEach(function (t) { ASKED[d.asked[t]] = t; });  // step id -> talk id
    });
  }
  // A step's text as blocks (docs/view.md, "Commands and their output"): prose as Markdown, the command as typed in
  // code, each output preformatted (terminal formatting removed as every text is), standard error under "stderr".
  // The server reads a clipped text whole from its record for them, so they carry no "Show all".
  function blocksEl(blocks, cls) {
    const box = h('div', { class: 'blocks' });
    blocks.forEach(function (b) {
      if (b[0] === 'text') box.append((cls === 'assistant' ? md : said)(b[1], 'msg ' + (cls || '')));  // a person's prose as written
      else if (b[0] === 'command') box.append(h('p', { class: 'command' }, h('code', null, b[1])));
      else {
        if (b[0] === 'stderr') box.append(h('div', { class: 'small faint' }, 'stderr'));
        const text = String(b[1]).replace(CSI, '').replace(/^[\r\n]+|[\r\n]+$/g, '');
        box.append(pre(text.trim() ? text : '(no output)', 'output ' + b[0]));
      }
    });
    return box;
  }
  function blocksLine(blocks) { return blocks.map(function (b) { return b[1]; }).join(' '); }
  function heading(t) { return HEADINGS[t.id] || t.label; }
  function pollDocument() {
    if (document.hidden || !D) return;
    fetch(withHide('/api/c/' + enc(CID) + '/view'), { headers: { accept: 'application/json', 'if-none-match': ETAG } }).then(function (r) {
      polled(r.status);
      if (r.status !== 200) return null;
      const etag = r.headers.get('etag') || '';
      return r.json().then(function (doc) { return { etag: etag, doc: doc }; });
    }, function () { polled(0); return null; }).then(function (got) {
      if (!got || got.etag === ETAG) return;
      ETAG = got.etag;
      return loadHeadings().then(function () { return got; });
    }).then(function (got) {
      if (!got) return;
      redraw(got.doc);
      const note = h('div', { class: 'box notice small', id: 'updated' }, 'Updated to round ' + got.doc.head.round + ' at ' + fmtTime(Date.now()) + '.');
      const old = document.getElementById('updated'); if (old) old.remove();
      app.insertBefore(note, app.children[1] || null);
      say(note.textContent);
    }, function () { /* the server is away for a moment; try again next time */ });
  }

  // ``doc`` drawn again in place of the one shown, the open talks, the open folds and steps, the subagents' talks opened
  // in a step, the tab, the keyboard focus and the element at the window's centre kept (trial 28b, F1: focus fell to
  // <body> at each new round; trial 42c F4: when a subagent landed its Task step left the fold of tool calls it was in,
  // the fold's key (its first step) named no fold any more and the rest of it closed, under the reader's eyes).
  // Steps are named by where they are drawn (scopeOf) and their data-id; a fold by the steps it holds: a fold is drawn
  // open when a step it holds was in an open fold and none in a closed one (a fold that grew, split or lost a step).
  function redraw(doc) {
    const open = [], steps = [], subs = [], shown = [], opened = [], folds = new Map();
    const at = function (el) { return { scope: scopeOf(el), id: el.getAttribute('data-id') }; };
    talkEls.forEach(function (el, id) { if (el.classList.contains('open')) open.push(id); });
    panel.querySelectorAll('.node > .row[aria-expanded="true"]').forEach(function (r) { steps.push(at(r.parentElement)); });
    panel.querySelectorAll('.node > .sub > section.talk').forEach(function (t) {
      const p = at(t.parentElement.parentElement);
      subs.push({ path: p.scope.concat([p.id]), open: t.classList.contains('open') });
    });
    panel.querySelectorAll('details.fold').forEach(function (d) {
      const sc = scopeOf(d), ns = d.querySelectorAll(':scope > .node[data-id]');
      ns.forEach(function (n) { folds.set(JSON.stringify(sc) + ' ' + n.getAttribute('data-id'), d.open); });
      if (d.open && ns.length) opened.push(at(ns[0]));  // one step of each open fold: its page drawn again
    });
    // the pages shown in each list: drawn again up to the last step it showed (appendSteps)
    panel.querySelectorAll('.stepsmore').forEach(function (m) {
      const last = m.previousElementSibling, n = last && (last.matches('.node') ? last : last.querySelector(':scope > .node:last-of-type'));
      if (n) shown.push(at(n));
    });
    keepingPlace(function () {
      drawDocument(doc);
      open.forEach(function (id) { const el = talkEls.get(id); if (el) el._open(true); });
      subs.sort(function (p, q) { return p.path.length - q.path.length; }).forEach(function (s) {
        const n = placed(s.path.slice(0, -1), s.path[s.path.length - 1]), btn = n && n.querySelector(':scope > .sub > button.subopen');
        if (btn && !n.querySelector(':scope > .sub > section.talk')) btn.click();
        const t = n && n.querySelector(':scope > .sub > section.talk');
        if (t && !s.open) t._open(false);
      });
      shown.concat(opened).forEach(function (s) { placed(s.scope, s.id); });
      panel.querySelectorAll('details.fold').forEach(function (d) {
        const sc = JSON.stringify(scopeOf(d)), was = Array.from(d.querySelectorAll(':scope > .node[data-id]'), function (n) {
          return folds.get(sc + ' ' + n.getAttribute('data-id'));
        });
        if (was.indexOf(true) >= 0 && was.indexOf(false) < 0) d.open = true;
      });
      steps.forEach(function (s) { const n = placed(s.scope, s.id); if (n && n._toggle) n._toggle(true); });
    }, true);
  }
  // Where ``el`` is drawn: the data-ids of the steps whose subagent's talk, opened in the step, holds it, outermost first
  // ([] for a step of a talk of the panel).
  function scopeOf(el) {
    const out = [];
    for (let x = el.parentElement; x && x !== panel; x = x.parentElement) if (x.classList.contains('sub')) out.unshift(x.parentElement.getAttribute('data-id'));
    return out;
  }
  // The element of step ``id`` drawn in ``scope`` (scopeOf), the pages up to it drawn; null when it is not there.
  function placed(scope, id) {
    let tel = null;
    for (let i = 0; i < scope.length; i++) {
      const n = tel ? drawnTo(tel, scope[i]) : stepEl(scope[i]);
      tel = n && n.querySelector(':scope > .sub > section.talk');
      if (!tel) return null;
    }
    return tel ? drawnTo(tel, id) : stepEl(id);
  }
  function stepEl(id) { const t = talkEls.get(IDX.talkOf.get(id)); return t ? drawnTo(t, id) : panel.querySelector('.node[data-id="' + cssEscape(id) + '"]'); }

  function index(doc) {
    const nodes = new Map(), talkOf = new Map(), streamTalk = new Map(), streamInfo = new Map(), fileBySeq = new Map();
    // parentOf: the node (or talk) whose list draws a node (a loose node drawn in place: its place's parent); size: the
    // steps a node is, itself and all it holds (appendSteps' pages count them)
    const parentOf = new Map(), size = new Map();
    function walk(n, talk, parent) {
      nodes.set(n.id, n);
      if (talk) talkOf.set(n.id, talk);
      if (parent) parentOf.set(n.id, parent);
      let k = 1;
      (n.children || []).forEach(function (c) { k += walk(c, talk, n.id); });
      size.set(n.id, k);
      return k;
    }
    doc.talks.forEach(function (t) { walk(t, t.id, null); });
    (doc.loose || []).forEach(function (n) { walk(n, PLACES[n.id] ? PLACES[n.id].talk : null, PLACES[n.id] ? PLACES[n.id].parent : null); });  // drawn in place
    doc.streams.forEach(function (s) { streamInfo.set(s.id, s); if (s.talk) streamTalk.set(s.id, s.talk); });
    doc.files.forEach(function (f) { if (f.seq !== null && f.seq !== undefined) fileBySeq.set(f.seq, f); });
    const talkIndex = new Map();
    doc.talks.forEach(function (t, i) { talkIndex.set(t.id, i); });
    return { nodes: nodes, talkOf: talkOf, streamTalk: streamTalk, streamInfo: streamInfo, fileBySeq: fileBySeq, talkIndex: talkIndex, parentOf: parentOf, size: size };
  }

  // The document's secrets (asz_core/view/page_secrets.py): the page is served its credentials masked by default, and
  // says how many places it masked and how to see them whole; nothing when none was (or the server shows them whole).
  function secretsChip(s) {
    if (!s || s.shown !== 'masked' || !s.places) return null;
    return h('span', { class: 'chip', id: 'secrets', title: 'credentials of a known form are masked in what this page is served (AKIA…MPLE); the landed records are unchanged; asz view --no-redact serves them whole' },
      num(s.places) + ' credential place(s) masked');
  }

  // The conversation as asz export writes it, in md, html or json (/api/c/{id}/export: its bytes, withheld and masked
  // as this page is; trial 44b F5: the page had no export).
  function downloadChip() {
    return h('span', { class: 'chip', id: 'download' }, 'Download ', ['md', 'html', 'json'].map(function (f, i) {
      return [i ? ' · ' : '', h('a', { href: withHide('/api/c/' + enc(D.conversation) + '/export', 'format=' + f), download: D.conversation + '.' + f,
        'data-format': f, title: 'asz export ' + D.conversation + ' --format ' + f + ' (masked as this page is)' }, f)];
    }));
  }
  function drawHeader() {
    const s = D.summary;
    document.title = tabTitle(s.title || D.conversation) + ' · asz view';
    where.textContent = D.conversation;
    add(app, h('h1', { id: 'title', dir: 'auto' }, titleText(s.title || '(untitled)')));
    const meta = h('div', { class: 'chips' }, stateBadge(s.state), inMemoryMark(s.problems),
      h('span', { class: 'chip mono' }, D.conversation),
      h('span', { class: 'chip' }, fmtTime(s.from), ' → ', fmtTime(s.to), (s.from && s.to) ? ' (' + fmtDur(s.to - s.from) + ')' : ''),
      SENT ? h('span', { class: 'chip', id: 'sent-by' }, SENT) : null,  // which host sent it (trial 32c F4)
      secretsChip(SECRETS), downloadChip());
    add(app, meta);
    if (s.held_back) {  // it does not verify: the document counts no token or cost figure (summary.held_back)
      const rt = s.runtime || {};
      add(app, h('div', { class: 'chips', id: 'usage' },
        chip('project', (s.project || (s.removed ? '(removed by retention)' : '—')) + (s.git_branch ? ' (' + s.git_branch + ')' : '')),
        chip('runtime', [rt.name, rt.version].filter(Boolean).join(' ') || '—'),
        chip('models', (s.models || []).join(', ') || '—'),
        h('span', { class: 'chip held', id: 'usage-held' }, 'tokens and cost held back (' + s.held_back.state + '): this conversation does not verify, so its ' +
          num(s.held_back.calls) + ' call(s) with usage are in no figure, here, in the list or in usage per day')));
    } else if (s.usage) {  // issue 17: where, with what, and at what cost
      const rt = s.runtime || {}, notRecorded = unrecorded(s.usage, typeof s.llm_calls === 'number' ? s.llm_calls : (s.kinds || {})['llm.call'], s.credits);
      add(app, h('div', { class: 'chips', id: 'usage' },
        chip('project', (s.project || (s.removed ? '(removed by retention)' : '—')) + (s.git_branch ? ' (' + s.git_branch + ')' : '')),
        chip('runtime', [rt.name, rt.version].filter(Boolean).join(' ') || '—'),
        chip('models', s.counted_in && (s.models_there || []).length ? s.models_there.join(', ') + ', counted in ' + s.counted_in :  // fix49a
          (s.models || []).join(', ') || modelsUnnamed(s.llm_calls)),
        s.calls_grouped && s.llm_calls ? h('span', { class: 'chip', id: 'calls-grouped', title: s.calls_grouped },  // F15: asz's grouping
          'model calls ', h('b', null, num(s.llm_calls)), ' (grouped by asz: ' + s.calls_grouped + ')') : null,
        s.counted_in ? chip('tokens', '0, counted in ' + s.counted_in + ' (' + s.counted_why + ')') :  // the words view.counted_in chose (46a F5, 48a F4)
        notRecorded ? chip('tokens', s.llm_calls === 0 && typeof s.credits !== 'number' ? 'not recorded: ' + ((s.problems || []).some(function (p) { return String(p).indexOf(WORDS.unread_prefix) === 0; })
          ? WORDS.no_call_read : WORDS.no_call) : WORDS.not_by_runtime) :  // F17: listing.unrecorded_text's words (WORDS)
          chip('tokens', 'in ' + num(s.usage.in) + ' · out ' + num(s.usage.out) + ' · cache read ' + num(s.usage.cache_read) +
            ' · cache write ' + writes(s.usage)),
        chip('cost', s.counted_in ? '$0.00, counted in ' + s.counted_in : notRecorded ? '— (' + WORDS.no_price + ')' : costText(s.cost)),
        s.cost_by_kind_line ? h('span', { class: 'chip', id: 'cost-by-kind' }, 'cost by kind ', h('b', null, s.cost_by_kind_line)) : null,  // asz conversation's words (trial 27a F3)
        typeof s.credits === 'number' ? h('span', { class: 'chip', id: 'conversation-credits' }, 'credits ', h('b', null, credits(s.credits)),
          ' (' + CREDITS + ')') : null,  // the runtime's own unit (Kiro), as asz conversation prints it, never tokens or USD
        s.state && s.state !== 'verified' ? h('span', { class: 'chip held', id: 'usage-held' },
          'not verified (' + s.state + '): these figures are read from evidence that does not verify, and the list and usage per day hold them back') : null));
    }
    add(app, h('div', { class: 'chips' }, chip('talks', num(s.talks)), chip('steps', num(s.steps)), chip('streams', num(s.streams)),
      chip('segments', num(s.segments)), chip('rounds', num(s.rounds)), chip('unresolved', num(s.unresolved) + (placedUnresolved().length ? ' (' + num(placedUnresolved().length) + ' placed: a compaction agent\'s file)' : '')),
      chip('changes', num(s.changes) + (s.changes_not_derived ? ' (+' + num(s.changes_not_derived) + ' not derived)' : '')), chip('provider bodies', num(s.provider_bodies)),
      chip('head', 'round ' + D.head.round + ' · ' + short(D.head.digest))));
    if (s.continues || (s.continued_in && s.continued_in.length)) {  // as asz conversation's link lines say it
      add(app, h('div', { class: 'box notice small', id: 'links' },
        s.continues ? h('p', null, 'Continues ', h('a', { class: 'mono', href: withHide('/c/' + enc(s.continues)) }, shortId(s.continues)),
          s.counted_there && !s.repeated  // a receiving root: its host drew them here (trial 28a F1)
            ? ': counted once here: its ' + num(s.counted_there.calls || 0) + ' repeated model call(s) are drawn here, as the host that sent it assembled them, and counted there only.'
            : ': its ' + num(s.repeated || 0) + ' repeated record(s) are drawn and counted there, their calls and tokens with them.') : null,
        (s.continued_in || []).length ? h('p', null, 'Continued in ', s.continued_in.map(function (c, i) {
          return [i ? ', ' : '', h('a', { class: 'mono', href: withHide('/c/' + enc(c)) }, shortId(c))];
        }), s.counted_later  // a call that goes on there, its last line landed there only (trial 33a F1)
          ? ': ' + num(s.counted_later.calls || 0) + ' model call(s) drawn here go on there: their later lines, the last with the final usage, landed there only, so they are counted there.'
          : '.') : null));
    }
    const wh = Object.keys(s.withheld || {});
    if (wh.length) {
      add(app, h('div', { class: 'box notice', id: 'withheld' }, h('strong', null, 'Withheld on this page: '),
        wh.map(function (k, i) { return [i ? ', ' : '', k + ' (' + num(s.withheld[k]) + (k === 'provider_bodies' ? ' bodies' : ' records') + ')']; }),
        '. Their steps keep their place and size; their text is not shown.'));
    }
    if (s.cut && (s.cut.truncated || s.cut.too_large)) {
      add(app, h('div', { class: 'box notice', id: 'cut' }, h('strong', null, 'Cut to land: '),
        num(s.cut.truncated + s.cut.too_large) + ' part(s) were larger than the landing budget (' + num(s.cut.truncated - (s.cut.data_taken || 0)) + ' truncated, ' +
        (s.cut.data_taken ? num(s.cut.data_taken) + ' tool result(s) kept their text whole without the runtime\'s structured copy, ' : '') +
        num(s.cut.too_large) + ' taken out whole; ' + num(s.cut.bytes) + ' bytes not kept' + (s.cut.data_unsized ? ', ' + num(s.cut.data_unsized) + ' of unrecorded size' : '') +
        '). Each keeps its size and the SHA-256 of what was taken out.'));
    }
    if (s.removed) add(app, removedBox(s.removed));
    if (s.conflicts && s.conflicts.length) add(app, stoppedBox(s.conflicts));
    if (s.sources_gone && s.sources_gone.length) add(app, goneBox(s.sources_gone));
    if (s.problems && s.problems.length) {
      add(app, h('div', { class: 'box error', id: 'problems' }, h('strong', null, PROBLEMS_HEAD[s.state] || 'Problems found:'),
        h('ul', null, s.problems.map(function (p) { return h('li', null, p); }))));
    }
  }

  const TABS = [
    ['talks', 'Talks', function () { return D.talks.length; }],
    ['streams', 'Streams', function () { return D.streams.length; }],
    ['segments', 'Segments', function () { return D.segments.length; }],
    ['rounds', 'Rounds', function () { return D.rounds.length; }],
    ['files', 'Files', function () { return D.files.length; }],
    ['relations', 'Relations', function () { return D.relations.length; }],
    ['loose', 'Loose', function () { return (D.loose || []).length; }],
    ['unresolved', 'Unresolved', function () { return unresolvedAs('open').length; }],  // still open, as asz conversation says
    ['undescribed', 'Undescribed', function () { return (D.undescribed || []).length; }],
    ['changes', 'Changes', function () { return (D.workspace_changes || []).length; }],  // the header's changes chip's list
    ['tools', 'Tools', function () { return ((D.summary || {}).calls_by_tool || []).length; }],  // calls per tool (trial 30b F2)
    ['executions', 'Hook executions', function () { return (D.tool_executions || []).length; }],  // trial 23a, F3; asz hook's records, not every tool call (trial 30b F2)
    ['glossary', 'Glossary', function () { return null; }],
  ];
  let tabbar = null, panel = null;
  function drawTabs() {
    tabbar = h('div', { class: 'tabs', role: 'tablist' });
    TABS.forEach(function (t) {
      const n = t[2]();
      tabbar.append(h('button', { role: 'tab', id: 'tab-' + t[0], 'data-tab': t[0], 'aria-selected': 'false', 'aria-controls': 'panel',
        tabindex: '-1', onclick: function () { showTab(t[0]); } }, t[1], n === null ? '' : ' (' + num(n) + ')'));
    });
    arrowTabs(tabbar);
    panel = h('div', { id: 'panel', role: 'tabpanel' });
    add(app, [tabbar, panel]);
  }
  function showTab(name) {
    if (!TABS.some(function (t) { return t[0] === name; })) name = 'talks';
    currentTab = name;
    selectTab(tabbar, panel, function (b) { return b.getAttribute('data-tab') === name; });
    setHash({ tab: name === 'talks' ? null : name });
    clear(panel);
    ({ talks: drawTalks, streams: drawStreams, segments: drawSegments, rounds: drawRounds, files: drawFiles,
      relations: drawRelations, loose: drawLoose, unresolved: drawUnresolved, undescribed: drawUndescribed, changes: drawChanges, tools: drawTools, executions: drawExecutions, glossary: drawGlossary })[name]();
  }

  // ------------------------------------------------------------------ talks

  const talkEls = new Map();
  function drawTalks() {
    talkEls.clear();
    if (!D.talks.length) {  // hook records alone (trial 23a, F3): what the observers saw, where a reader looks first
      const te = D.tool_executions || [], loose = D.loose || [];
      add(panel, h('p', { class: 'muted', id: 'no-talks' }, 'No talks.' + (te.length ? ' No transcript of this conversation has landed; ' +
        num(te.length) + ' tool execution' + (te.length === 1 ? '' : 's') + ' recorded around its tool calls:' : '')));
      if (te.length) panel.append(executionTable(te));
      if (loose.length) {  // a transcript with no prompt (trial 43b F1): its calls and replies drawn here, as the exports' "Outside any talk"
        panel.append(h('h2', { id: 'outside-talks' }, 'Outside any talk'));
        appendSteps(panel, loose);
      }
      return;
    }
    panel.append(h('div', { class: 'talktools small' },
      h('button', { class: 'btn', type: 'button', id: 'expand-all', onclick: expandAll }, 'Expand all'), ' ',
      h('button', { class: 'btn', type: 'button', id: 'collapse-all', onclick: collapseAll }, 'Collapse all'),
      h('span', { class: 'faint' }, ' Talks open one by one; "Expand all" draws every step, tool input and result, so the browser\'s find sees them (a step\'s facts open on a click).')));
    D.talks.forEach(function (t) { panel.append(talkBlock(t, false)); });
  }
  // "Expand all" draws every page, opens every fold and every step whose text its row does not show whole, as a fill
  // (a talk of 100,003 steps: session 41); a second click stops it where it is.
  function expandAll() {
    if (filling && filling.owner === panel) { stopFill(); return; }
    const btn = document.getElementById('expand-all');
    fill((function* () {
      for (const el of Array.from(talkEls.values())) { el._open(true); yield; }
      for (let ms = panel.querySelectorAll('.stepsmore'); ms.length; ms = panel.querySelectorAll('.stepsmore')) {
        for (const m of Array.from(ms)) { const list = m.parentNode; while (list && list._drawSome && list._drawSome(FILL_ENTRIES)) yield; }
      }
      for (const d of Array.from(panel.querySelectorAll('details.fold'))) d.open = true;
      yield;
      for (const n of Array.from(panel.querySelectorAll('.node'))) if (n._toggle && n._content) { n._toggle(true); yield; }
    })(), panel, function () { if (btn) btn.textContent = 'Expand all'; });
    if (btn && filling && filling.owner === panel) btn.textContent = 'Stop expanding';
  }
  function collapseAll() {
    stopFill();
    panel.querySelectorAll('.node').forEach(function (n) { if (n._toggle) n._toggle(false); });
    panel.querySelectorAll('details.fold').forEach(function (d) { d.open = false; });
    talkEls.forEach(function (el) { el._open(false); });
  }

  function streamLabel(streamName) {
    const s = IDX.streamInfo.get('stream/' + streamName);
    return s ? (s.label || s.name) : streamName;
  }

  // The closed talk's last reply, from its first visible character: a reply that opens with blank lines (a compaction's
  // summary) showed an empty line and an ellipsis. The text itself is the document's, drawn whole in the talk.
  // It is drawn under the talk's button, not in it (trial 28b, F6: the button's accessible name held the whole
  // preview, up to 2,073 characters, read again at each Tab); a click on it opens the talk as the button does.
  function replyPreview(reply) {
    const text = reply ? String(reply).replace(/^\s+/, '') : '';
    return text ? h('div', { class: 'reply' }, h('span', { 'aria-hidden': 'true' }, '↳ '), text) : null;
  }
  function noLabel(t) {
    const gone = removedOpening(t);
    return h('span', { class: 'faint' }, gone ? '(no label: what the person typed was removed by retention, ' + fmtBytes(gone.bytes) + ')' :
      '(no label: nothing a person typed starts this talk)');
  }
  function talkBlock(t, nested) {
    const child = t.child || (t.stream && t.stream !== 'main' && IDX.streamInfo.get('stream/' + t.stream) && IDX.streamInfo.get('stream/' + t.stream).role !== 'main');
    const body = h('div', { class: 'talkbody', hidden: 'hidden' });
    const caret = h('span', { class: 'caret', 'aria-hidden': 'true' }, '▸');
    // the talk's own time (its at: what started it, seed 004), as the exports give it; its from (the earliest step)
    // only without one: a step injected into the talk can be older than the talk (trial 17b, F5)
    const start = t.at || t.from;
    // The button's name is the talk's label, then its time and counts (the label first in the DOM, drawn under the
    // line of counts by CSS order); it holds phrasing content alone (spans), no block element.
    const head = h('button', { class: 'talkhead', 'aria-expanded': 'false', type: 'button' },
      h('span', { class: 'label' }, heading(t) || (child ? h('span', { class: 'muted' }, 'Subagent: ' + streamLabel(t.stream)) :
        t.orphan ? h('span', { class: 'muted' }, 'Subagent: parent call not found') : noLabel(t))),
      h('span', { class: 'line1' }, caret, h('span', { class: 'when' }, fmtTime(start)),
        child ? h('span', { class: 'tag' }, 'subagent · ' + streamLabel(t.stream)) :
          t.sidechain ? h('span', { class: 'tag' }, 'subagent · its lines in the parent\'s transcript' +
            // no call and no prompt of its own opened it (the document's talk orphan: field report 34), as md says it
            (t.orphan ? ' · parent call not found' : '')) : null,
        REPLAYS[t.id] ? h('span', { class: 'replay' }, replayText(REPLAYS[t.id])) :
          h('span', null, runsText(t) + num(t.steps || 0) + ' steps · ' + num(t.tools || 0) + ' tools' + (COSTS[t.id] ? ' · cost ' + COSTS[t.id].text : '')),
        // steps after the last timed one (Kiro CLI 2.x writes no time on a reply or a tool): no length, never 0 ms
        t.untimed_end ? h('span', { class: 'lasted' }, 'length not known: the last ' + num(t.untimed_end) + ' steps carry no time') :
        (start && t.to && t.to >= start) ? h('span', { class: 'lasted' }, fmtDur(t.to - start)) : null, unverifiedTag(t), credMark(t)));
    const preview = replyPreview(t.reply);
    // The talk is a heading of the page's outline (trial 28b, F3: one heading on the page; docs/view.md promises h1
    // the conversation, h2 its sections): h2, one level deeper for a subagent's talk opened inside a step of another,
    // per nesting (nestHeadings, run as it is placed and drawn); the button is inside it.
    const el = h('section', { class: 'talk' + (child ? ' child' : ''), 'data-talk': t.id }, h('h2', { class: 'talkh', 'data-lv': '2' }, head), preview, body);
    let drawn = false;
    function open(on) {
      if (on && !drawn) { drawn = true; drawTalkBody(t, body); nestHeadings(el); }
      body.hidden = !on;
      el.classList.toggle('open', on);
      caret.textContent = on ? '▾' : '▸';
      head.setAttribute('aria-expanded', on ? 'true' : 'false');
    }
    el._open = open;
    head.addEventListener('click', function () {
      const on = body.hidden;
      open(on);
      if (!nested) setHash({ talk: on ? t.id : null, step: null });
    });
    if (preview) preview.addEventListener('click', function () { head.click(); });
    if (!nested) talkEls.set(t.id, el);
    return el;
  }

  // A talk whose records came to a receiver with another credential than the session's first file (trial 27c F1: the
  // conversation said it at its top only): its chip names the credentials, in the button's name too, so it is heard.
  function credMark(t) {
    const c = CREDS[t.id];
    if (!c) return null;
    const other = c.credentials.filter(function (x) { return x !== c.owner; });
    return h('span', { class: 'tag cred', title: 'This talk\'s records came to the receiver with credential ' + c.credentials.join(' and ') +
      '; the session\'s first file came with ' + c.owner + ': not one sender\'s evidence (docs/push.md, One session, one credential)' },
      'sent with credential ' + other.join(', ') + ', not ' + c.owner);
  }
  // A talk's runs in its header: none said for a talk with no run (a subagent's talk that no prompt of its own opens,
  // Claude Code 2.0.x's agent file, the compaction agent's: its steps hang under the talk itself, runs 0), never "0 runs".
  // What a talk of copies alone holds (REPLAYS), in md's and html's words (prose_replays.REPLAY_TALK): the calls, and
  // the talks they are drawn in by their number in the document's order, as the exports number them.
  function replayText(r) {
    const at = (r.talks || []).map(function (id) { return D.talks.findIndex(function (x) { return x.id === id; }) + 1; })
      .filter(function (n) { return n > 0; }).sort(function (a, b) { return a - b; })
      .map(function (n) { return 'Talk ' + n; });  // by number, as render 34 exports: Talk 2, Talk 10 (fix47b; sorted as text, Talk 10, Talk 2)
    return 'holds only a copy of ' + (r.calls || []).join(', ') + ' (its parent\'s model call, replayed in this sub-agent\'s file), drawn once, in ' +
      (at.join(', ') || 'its parent\'s talk');
  }
  function runsText(t) { return t.runs ? num(t.runs) + ' run' + (t.runs === 1 ? '' : 's') + ' · ' : ''; }

  function drawTalkBody(t, body) {
    const kids = withPlaced(t.id, t.children || []);
    if (t.prompt || PROMPTS[t.id]) body.append(askedEl(t));
    if (!kids.length) body.append(h('p', { class: 'faint' }, 'No steps in this talk.'));
    appendSteps(body, kids);
    const foot = h('div', { class: 'small talkfoot' }, h('button', { class: 'btn', type: 'button', onclick: function () { evidence(t); } }, 'Evidence of the talk'));
    if (t.edges && t.edges.length) foot.append(edgesLine(t.edges));
    body.append(foot);
  }

  // ``kids`` (the children of the talk or run ``parentId``) with the loose nodes drawn among them (PLACES): a compaction's
  // boundary and summary where it happened, injected context before the talk it heads.
  function withPlaced(parentId, kids) {
    const out = kids.slice();
    (D.loose || []).forEach(function (n) {
      const p = PLACES[n.id];
      if (!p || p.parent !== parentId) return;
      const i = p.before ? out.findIndex(function (c) { return c.id === p.before; }) : -1;
      if (i < 0) out.push(n); else out.splice(i, 0, n);
    });
    return out;
  }
  // What a subagent's talk was asked (its ``prompt``: its stream's opening prompt), at the head of the talk, as Markdown;
  // a prompt the document clipped is read whole from the talk's record on a click.
  const ASKED_LABEL = 'asked (the prompt this talk was given)';
  function askedEl(t) {
    const given = t.prompt ? null : PROMPTS[t.id];  // else read by the server from the call that started it, whole
    const by = given ? given.from : Object.keys(ASKS).filter(function (c) { return ASKS[c].talk === t.id; })[0];  // its call
    const box = h('div', { class: 'node k-asked', 'data-id': 'prompt/' + t.id }, h('div', { class: 'row' }, h('span', { class: 'kind' }, ASKED_LABEL),
      by ? h('span', { class: 'pv' }, 'by the call ', h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(by); } }, by)) : null,
      h('span', { class: 'when' }, fmtClock(t.at))));
    const text = md(given ? given.text : t.prompt, 'msg external asked');
    box.append(text);
    if (!given && utf8len(t.prompt) > CLIP - 4 && t.ref) {
      const note = h('div', { class: 'clip' }, 'Shows the first ' + num(utf8len(t.prompt)) + ' bytes. ');
      note.append(h('button', { class: 'linkbtn', type: 'button', onclick: function () {
        note.textContent = 'Loading the rest…';
        api(recordPath(t.ref)).then(function (res) {
          const whole = res.ok ? fullText(res.data, t.ref, 'text') : null;
          if (whole === null) { note.textContent = 'The rest is not available' + (res.ok ? '.' : ': ' + res.error + ' (HTTP ' + res.status + ')'); return; }
          mdInto(text, whole);
          note.textContent = 'Showing all ' + num(utf8len(whole)) + ' bytes.';
        });
      } }, 'Show all'));
      box.append(note);
    }
    return box;
  }
  function inlineOf(n) { return ASKED[n.id] ? 'external' : INLINE_TEXT[n.kind]; }

  const KIND_LABEL = {
    'message.external': 'person', 'message.assistant': 'assistant', 'message.synthetic': 'synthetic', 'context.injection': 'injected',
    'llm.call': 'model call', 'thinking': 'thinking', 'tool': 'tool', 'agent.call': 'subagent call', 'agent.launch_ack': 'launched',
    'agent.output': 'subagent output', 'runtime.notification': 'notification', 'epoch.boundary': 'context compacted',
    'epoch.summary': 'summary the model continued from', 'error.api': 'API error', 'control.interrupt': 'interrupt', 'control.permission': 'permission',
    'control.command': 'command', 'turn.duration': 'turn time', 'control.notice': 'notice', 'run': 'run', 'talk': 'talk'
  };
  // An error step says what failed (its failed key: a model request, 'API error', or an app's run, 'run failed';
  // rate_words.ERROR_LABELS, the exports' labels; trial 32a F7): the seed's one error kind is error.api.
  function kindLabel(n) {
    if (NOTICE_LABELS[n.id]) return NOTICE_LABELS[n.id].toLowerCase();
    if (n.kind === 'error.api' && n.failed && WORDS.error_labels[n.failed]) return WORDS.error_labels[n.failed].toLowerCase();
    return KIND_LABEL[n.kind] || n.kind;
  }
  const CONTAINERS = { 'run': 1, 'llm.call': 1, 'talk': 1 };
  const INLINE_TEXT = { 'message.external': 'external', 'message.assistant': 'assistant', 'agent.output': 'assistant', 'message.synthetic': 'assistant', 'epoch.summary': 'assistant' };

  function withheldFlags(n) { return (n.flags || []).filter(function (f) { return f === 'system_prompt' || f === 'tool_schemas'; }); }

  // A call's row: what the adapter says the call acts on (GISTS), else its input's first non-blank string among
  // RULES.input_fields (placing.INPUT_FIELDS, served into this script), else the input as written: placing.call_summary,
  // the exports' and the audit prose's one rule; a todo list its counts, an edit its path and lines changed (DRAWN's
  // gist, tool_drawn.drawn_gist, as html's line).
  function toolInputPreview(n) {
    if (GISTS[n.id]) return GISTS[n.id];
    const drawnAs = DRAWN[n.id] && (DRAWN[n.id].todos || DRAWN[n.id].diff);
    if (drawnAs) return drawnAs.gist;  // '4 todos: 1 completed, …', '/w/a.py (-3 +5)' (tool_drawn.drawn_gist), not its JSON
    if (!n.text) return '';
    try {
      const v = JSON.parse(n.text);
      if (v && typeof v === 'object') {
        for (const k of RULES.input_fields || []) {
          if (typeof v[k] === 'string' && v[k].trim()) return v[k];
        }
      }
    } catch (e) { /* clipped or not JSON */ }
    return n.text;
  }

  // A notice or error the runtime wrote as a JSON object: its message (or its type, category and status) for the row;
  // the step's details keep the whole text.
  function messageOf(v, depth) {
    if (!v || typeof v !== 'object' || depth > 3) return '';
    for (const k of ['message', 'error', 'text', 'reason', 'content']) if (typeof v[k] === 'string' && v[k].trim()) return v[k];
    for (const k of ['value', 'error', 'data', 'context', 'detail']) { const m = messageOf(v[k], depth + 1); if (m) return m; }
    return '';
  }
  function readable(text) {
    const t = String(text || '').trim();
    if (t[0] !== '{') return text;
    let v;
    try { v = JSON.parse(t); } catch (e) { return text; }  // clipped or not JSON: as written
    if (!v || typeof v !== 'object' || Array.isArray(v)) return text;
    const ctx = v.context && typeof v.context === 'object' ? v.context : {};
    return messageOf(v, 0) || [v.type, v.category || v.subtype || v.key, v.status || ctx.status].filter(function (x) { return typeof x === 'string' && x; }).join(' · ') || text;
  }

  function rowTitle(n) {
    const k = n.kind, bits = [];
    if (k === 'tool' || k === 'agent.call') {
      bits.push(h('span', { class: 'name' }, n.name || k));
      bits.push(h('span', { class: 'pv' }, oneLine(toolInputPreview(n), 160)));
    } else if (k === 'llm.call') {
      const u = n.usage;
      bits.push(h('span', { class: 'pv' }, u ? 'tokens in ' + num(u.in) + ' · out ' + num(u.out) + ' · cache read ' + num(u.cache_read) + ' · cache write ' + writes(u) +
        (COSTS[n.id] ? ' · cost ' + COSTS[n.id].text : '') : ''));
      if (isLong(n)) bits.push(h('span', { class: 'long', title: LONG_TITLE }, LONG_MARK));
    } else if (k === 'run') {
      bits.push(h('span', { class: 'pv' }, 'trigger ' + ((n.attrs && n.attrs.trigger) || 'unknown')));
    } else if (k === 'turn.duration') {
      bits.push(h('span', { class: 'pv' }, n.duration_ms !== undefined ? 'the runtime measured ' + fmtDur(n.duration_ms) : ''));
    } else if (k === 'epoch.boundary' && LINES[n.id]) {
      bits.push(h('span', { class: 'pv' }, 'Context compacted (' + LINES[n.id] + ')'));
    } else if (LINES[n.id]) {  // a runtime's own record: its adapter's short form, the record folded under it (43c F3)
      bits.push(h('span', { class: 'pv' }, oneLine(LINES[n.id], 200)));
    } else if (inlineOf(n)) {
      // text is drawn under the row
    } else if (n.text) {
      bits.push(h('span', { class: 'pv' }, oneLine(BLOCKS[n.id] ? blocksLine(BLOCKS[n.id]) : readable(n.text), 200)));
    } else if (n.state && n.state !== 'available' && n.state !== 'omitted') {
      bits.push(h('span', { class: 'pv faint' }, LOST[n.state] ? lostText(n.state, n.bytes, n.sha256) : '(' + n.state + ')'));
    }
    return bits;
  }

  // The landed file a node's records come from when it does not verify (its files entry names the problem), else null:
  // the node's text is held back (state unavailable) and the row says why, where it is drawn.
  function unverifiedFile(n) {
    const refs = (n.ref ? [n.ref] : []).concat(n.refs || []);
    for (let i = 0; i < refs.length; i++) {
      const f = IDX.fileBySeq.get(refs[i].seq);
      if (f && f.problem) return f;
    }
    return null;
  }
  function unverifiedTag(n) {
    const f = unverifiedFile(n);
    return f ? h('span', { class: 'tag failed unverified', title: f.file + ': ' + f.problem },
      'not verified: landed file seq ' + f.seq + ' does not verify; its text is not shown') : null;
  }

  const REFUSED_WHY = 'the person refused this call: its result is the runtime\'s fixed answer to a refusal (flagged failed in the record)';
  function tags(n) {
    const out = [];
    const bad = unverifiedTag(n);
    if (bad) out.push(bad);
    // a step the person refused says so (its refused key, session 40), as the exports and asz usage tools say it
    // a sub-agent's line in its parent's file that no call started (the document's step sidechain: field report 34,
    // trial 43c F6), drawn among the parent's steps; the head counts its call under subagents, as the exports say it
    if (n.sidechain) out.push(h('span', { class: 'tag', title: 'isSidechain: no call that started it' }, 'a sub-agent\'s line'));
    if (n.refused) out.push(h('span', { class: 'tag failed refused', title: REFUSED_WHY }, 'refused'));
    else if (n.failed) out.push(h('span', { class: 'tag failed' }, 'failed'));
    if (n.state === 'omitted') out.push(h('span', { class: 'tag withheld' }, 'withheld · ' + fmtBytes(n.bytes)));
    else if (withheldFlags(n).length) out.push(h('span', { class: 'tag' }, withheldFlags(n).join(', ')));
    if (n.result_state === 'omitted') out.push(h('span', { class: 'tag withheld' }, 'result withheld'));
    // a tool's own run time where its runtime recorded it (LangSmith: trial 37b F4), else the time between its records
    if (n.duration_ms !== undefined && (n.kind === 'tool' || n.kind === 'agent.call')) out.push(h('span', { class: 'tag', title: 'the tool run\'s own start to end, as its runtime recorded them' }, fmtDur(n.duration_ms)));
    else if (n.request_to_result_ms !== undefined) out.push(h('span', { class: 'tag' }, fmtDur(n.request_to_result_ms)));
    executionsOf(n).forEach(function (e) { out.push(executionTag(e)); });
    if ((n.flags || []).indexOf('error') >= 0 && !n.failed) out.push(h('span', { class: 'tag failed' }, 'error'));
    return out;
  }

  // An assistant fragment with no text (a runtime writes "\n\n" before its tool calls) and nothing under it is not drawn.
  function emptyFragment(n) {
    return n.kind === 'message.assistant' && !(n.children && n.children.length) && n.state !== 'omitted' && !LOST[n.state] && !String(n.text || '').trim();
  }
  const FOLDED = { 'tool': 1, 'thinking': 1 };
  // A list of steps is drawn in pages (trial 40c F2: a talk of 100,003 steps took 52 s to open and the tab then hung):
  // its first STEP_PAGE steps, counted with all they hold (a model call and its text and tools), then a line "Show
  // N more" / "Show all" drawing the next page or the rest. A link to a step, a search hit and a kept open step draw
  // the pages up to the one holding it (drawnTo); "Expand all" draws every page.
  const STEP_PAGE = 300;
  // ``nodes`` as the entries appendSteps draws: {nodes, fold, weight}, a run of tool calls (and the thinking between
  // them) one folded entry; weight, the steps the entry holds, all levels down (IDX.size).
  function stepEntries(nodes) {
    const out = [];
    let run = [];
    function weigh(list) { return list.reduce(function (a, x) { return a + (IDX.size.get(x.id) || 1); }, 0); }
    function flush() {
      if (!run.length) return;
      const fold = run.some(function (x) { return x.kind === 'tool'; });
      (fold ? [run] : run.map(function (x) { return [x]; })).forEach(function (l) { out.push({ nodes: l, fold: fold, weight: weigh(l) }); });
      run = [];
    }
    nodes.forEach(function (c) {
      if (emptyFragment(c)) return;
      const starts = (c.edges || []).some(function (e) { return e.type === 'starts' && e.dir === 'out'; });
      if (FOLDED[c.kind] && !starts && !(c.media && c.media.length)) { run.push(c); return; }  // a step with an image stays in view
      flush();
      out.push({ nodes: [c], fold: false, weight: weigh([c]) });
    });
    flush();
    return out;
  }
  function entryEl(e) {
    if (!e.fold) return nodeEl(e.nodes[0]);
    const tools = e.nodes.filter(function (x) { return x.kind === 'tool'; });
    const names = {};
    tools.forEach(function (x) { names[x.name || 'tool'] = (names[x.name || 'tool'] || 0) + 1; });
    const failed = tools.filter(function (x) { return x.failed && !x.refused; }).length;
    const refused = tools.filter(function (x) { return x.refused; }).length;
    const label = num(tools.length) + ' tool call' + (tools.length === 1 ? '' : 's') + ': ' +
      Object.keys(names).map(function (nm) { return names[nm] > 1 ? nm + ' ×' + names[nm] : nm; }).join(', ') +
      (e.nodes.length > tools.length ? ' · thinking' : '') + (failed ? ' · ' + failed + ' failed' : '') + (refused ? ' · ' + refused + ' refused' : '');
    const fold = h('details', { class: 'fold' }, h('summary', null, label));
    e.nodes.forEach(function (x) { fold.append(nodeEl(x)); });
    return fold;
  }
  // Appends the steps ``nodes`` to ``parent``, a page at a time: runs of tool calls (and the thinking between them) are
  // folded into one <details> saying how many calls of which tools it holds; the browser's find opens a fold it finds
  // text in, and sees the steps of the pages drawn. ``parent._drawTo(id)`` draws the pages up to the entry holding the
  // step ``id`` of this list (false when it holds none); ``parent._drawAll()`` draws the rest at once;
  // ``parent._drawSome(n)`` draws the next ``n`` entries (what a fill draws between two yields: fill) and says whether
  // any is left. "Show all" fills the rest a slice at a time (session 41: 100,003 steps drawn at once hung the page
  // for many seconds); a second click on it stops the fill where it is, and the line says what is left again.
  function appendSteps(parent, nodes) {
    const entries = stepEntries(nodes);
    let next = 0, left = entries.reduce(function (a, e) { return a + e.weight; }, 0), where = null;
    // the line under the list, made once: its buttons stay the same elements (one keeps the focus while a fill runs)
    const said = h('span', { class: 'faint' }), page = h('button', { class: 'btn', type: 'button', onclick: function () { drawUpTo(-1, STEP_PAGE); } });
    const all = h('button', { class: 'btn', type: 'button', onclick: function () { filling && filling.owner === parent ? stopFill() : fillAll(); } }, 'Show all');
    const more = h('p', { class: 'stepsmore small' }, said, page, ' ', all);
    function drawUpTo(last, budget) {
      const frag = document.createDocumentFragment();
      for (let got = 0; next < entries.length && (next <= last || got < budget); next++) {
        frag.append(entryEl(entries[next])); got += entries[next].weight; left -= entries[next].weight;
      }
      parent.insertBefore(frag, more.parentNode === parent ? more : null);
      if (next >= entries.length) { more.remove(); return; }
      if (more.parentNode !== parent) parent.append(more);
      sayLeft();
    }
    function sayLeft() {
      const run = filling && filling.owner === parent;
      said.textContent = num(left) + ' more step' + (left === 1 ? '' : 's') + ' in this list, ' + (run ? 'being drawn… ' : 'not drawn yet (the browser\'s find does not see them). ');
      page.textContent = 'Show ' + num(Math.min(STEP_PAGE, left)) + ' more';
      page.hidden = run;
      all.textContent = run ? 'Stop drawing' : 'Show all';
    }
    function fillAll() {
      const last = more.previousElementSibling, had = more.contains(document.activeElement);
      fill((function* () { while (parent._drawSome(FILL_ENTRIES)) yield; })(), parent, function (whole) {
        if (!whole) { if (more.parentNode === parent) sayLeft(); return; }
        // the button that had the focus is gone with its line: the first step the fill drew takes it, the window kept
        const first = had && (!document.activeElement || document.activeElement === document.body) && last && last.nextElementSibling;
        const row = first && (first.matches('.node') ? first.querySelector(':scope > .row') : first.querySelector('summary'));
        if (row) row.focus({ preventScroll: true });
      });
      sayLeft();
    }
    parent._drawTo = function (id) {
      if (!where) { where = new Map(); entries.forEach(function (e, i) { e.nodes.forEach(function (x) { where.set(x.id, i); }); }); }
      if (!where.has(id)) return false;
      if (where.get(id) >= next) drawUpTo(where.get(id), 0);
      return true;
    };
    parent._drawAll = function () { if (next < entries.length) drawUpTo(entries.length, 0); };
    parent._drawSome = function (n) { if (next < entries.length) drawUpTo(next + n - 1, 0); return next < entries.length; };
    drawUpTo(-1, STEP_PAGE);
  }
  // A fill (a list's "Show all", "Expand all") runs ``work``, a generator yielding after each small unit, in slices,
  // each followed by a yield to the browser (the next animation frame; a timeout in a hidden tab, where frames stop), so
  // a click, a key or a scroll is answered between two slices. The first slice runs FILL_SLICE ms, each later one as
  // long as the browser took since the one before (its style, layout and paint of what that slice drew), at most
  // FILL_MOST ms: at 12 ms a slice, "Expand all" on 483 steps (37,000 nodes) laid the whole page so far out 13-17 times,
  // 0.4-1.4 s of layout and style beside 0.5-1.2 s of script; 3-6 times now, a third to a half sooner (trial 46c F2, session 46:
  // bench/page_expand_all.py). One fill runs at a time, its ``owner`` the element whose button started it: a new fill,
  // a second click on that button, "Collapse all", a redraw, a search or leaving the page stops it where it is (what it
  // drew stays). ``done(whole)``: after the last unit (true) or a stop (false).
  const FILL_SLICE = 12, FILL_MOST = 100, FILL_ENTRIES = 20;
  let filling = null;
  function fill(work, owner, done) {
    stopFill();
    const job = { owner: owner, stop: function () { if (filling !== job) return; filling = null; if (done) done(false); } };
    filling = job;
    const later = function (f) { if (document.hidden) setTimeout(f, 0); else requestAnimationFrame(f); };
    let ended = 0;
    (function slice() {
      if (filling !== job) return;
      const t0 = performance.now(), budget = ended ? Math.min(FILL_MOST, Math.max(FILL_SLICE, t0 - ended)) : FILL_SLICE;
      while (performance.now() - t0 < budget) {
        if (work.next().done) { filling = null; if (done) done(true); return; }
      }
      ended = performance.now();
      later(slice);
    })();
    return job;
  }
  function stopFill() { if (filling) filling.stop(); }
  // Draws the pages holding step ``id`` in the talk element ``tel``, each level down from the talk (appendSteps' pages):
  // the step's own list, the list holding its run or model call, and so on. Returns the step's element, or null.
  function drawnTo(tel, id) {
    return tel.matches('section.talk') ? drawnIn(tel.querySelector(':scope > .talkbody'), tel.getAttribute('data-talk'), id) : null;
  }
  // The same from the list ``holder`` whose entries are the children of ``top`` (null: the Loose tab's list).
  function drawnIn(holder, top, id) {
    const chain = [];
    for (let x = id; x && x !== top; x = IDX.parentOf.get(x)) chain.unshift(x);
    for (let i = 0; holder && i < chain.length; i++) {
      if (holder._drawTo) holder._drawTo(chain[i]);
      const el = holder.querySelector('.node[data-id="' + cssEscape(chain[i]) + '"]');
      if (!el) return null;
      if (i === chain.length - 1) return el;
      holder = el.querySelector(':scope > .kids');
    }
    return null;
  }

  function nodeEl(n) {
    const k = n.kind;
    const el = h('div', { class: 'node k-' + k.replace(/\./g, '-'), 'data-id': n.id });
    const det = h('div', { class: 'details', hidden: 'hidden' });
    let drawn = false;
    const row = h('div', { class: 'row', role: 'button', tabindex: '0', 'aria-expanded': 'false' },
      h('span', { class: 'kind' }, ASKED[n.id] ? ASKED_LABEL : kindLabel(n)), h('span', { class: 'title' }, rowTitle(n)), tags(n),
      h('span', { class: 'when' }, fmtClock(n.at)));
    function toggle(on) {
      if (on === undefined) on = det.hidden;
      if (on && !drawn) { drawn = true; drawDetails(n, det); nestHeadings(det); }
      det.hidden = !on;
      row.setAttribute('aria-expanded', on ? 'true' : 'false');
    }
    el._toggle = toggle;
    // Text its row does not show whole (a tool's input and result, thinking, a notice): what "Expand all" opens, so the
    // browser's find sees it; the facts of every other step stay one click away.
    const inline = inlineOf(n);
    el._content = k === 'tool' || k === 'agent.call' || (!inline && !CONTAINERS[k] && !!n.text);
    row.addEventListener('click', function (ev) {
      if (ev.target.closest('button,a')) return;
      toggle();
      if (!det.hidden) { setHash({ talk: IDX.talkOf.get(n.id) || null, step: n.id, q: null }); markTarget(el); }
    });
    row.addEventListener('keydown', function (ev) { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); toggle(); } });
    el.append(row);
    if (REPEATS[n.id]) {  // a subagent's output that repeats its last message, drawn above: one line naming it
      el.append(h('div', { class: 'msg faint repeats' }, '(the same text as ', REPEATS[n.id].map(function (m, i) {
        return [i ? ', ' : '', h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(m); } }, m)];
      }), ' above: the subagent\'s last message, which its output repeats)'));
    } else if (inline) {
      if (n.text) el.append(BLOCKS[n.id] ? blocksEl(BLOCKS[n.id], inline) : ((inline === 'external' && !ASKED[n.id]) || k === 'message.synthetic' ? said : md)(n.text, 'msg ' + inline));  // a client's notice as written too, as the html export (MARKDOWN_STEPS)
      else if (n.state === 'omitted') el.append(h('div', { class: 'msg faint' }, 'withheld (' + fmtBytes(n.bytes) + ')'));
      else if (LOST[n.state]) el.append(h('div', { class: 'msg faint' }, lostText(n.state, n.bytes, n.sha256)));
      if (n.text && clipped(n.text, n.bytes) && n.state !== 'omitted' && !BLOCKS[n.id]) el.append(clipNote(n, 'text', el.lastChild));
    }
    (n.media || []).forEach(function (m) { el.append(mediaEl(m)); });
    el.append(det);
    const kids = withPlaced(n.id, n.children || []);
    if (kids.length) {
      const kd = h('div', { class: 'kids' });
      appendSteps(kd, kids);
      el.append(kd);
    }
    if (k === 'agent.call' || k === 'tool') {
      (n.edges || []).forEach(function (e) {
        if (e.type === 'starts' && e.dir === 'out') el.append(subagentOpener(e.other));
      });
    }
    return el;
  }

  // Content not in the root (seed 000): a part too large to land holds nothing; a skeleton's part was removed by retention.
  // The same words as asz export's markers (asz_core/reading/export.py, part_marker).
  const LOST = WORDS.lost;  // rate_words.LOST, their one place
  // A part too large to land gives the SHA-256 of what was taken out (the node's sha256 / result_sha256), as the markers do.
  function lostText(state, bytes, sha) {
    const said = (bytes === undefined || bytes === null ? [] : [num(bytes) + ' bytes']).concat(state === 'too_large' && sha ? ['sha256 ' + sha] : []);
    return '[' + LOST[state] + (said.length ? ': ' + said.join(', ') : '') + ']';
  }

  // A media part (issue 18): a thumbnail from its landed record when its bytes are kept, else a labelled placeholder.
  function mediaEl(m) {
    const label = (m.mime || 'media') + ' · ' + fmtBytes(m.bytes) + (m.kept ? '' : ' · ' + (LOST[m.state] || m.state));
    const box = h('figure', { class: 'media' + (m.kept ? '' : ' placeholder'), 'data-digest': m.digest, title: 'sha256 ' + m.digest });
    if (m.kept && /^image\//.test(m.mime || '')) {
      const img = h('img', { class: 'thumb', alt: label });
      box.append(img);
      api(recordPath(m.ref)).then(function (res) {
        const p = res.ok && res.data && res.data.parts ? res.data.parts[m.ref.block] : null;
        if (p && typeof p.data === 'string') img.src = 'data:' + m.mime + ';base64,' + p.data;
      });
    }
    box.append(h('figcaption', { class: 'small' }, label));
    return box;
  }

  // A subagent stream, opened from the step that started it: its talk drawn in place, on demand.
  function subagentOpener(streamId) {
    const s = IDX.streamInfo.get(streamId);
    const talkId = IDX.streamTalk.get(streamId);
    const talk = talkId ? D.talks[IDX.talkIndex.get(talkId)] : null;
    const box = h('div', { class: 'sub' });
    const label = s ? (s.label || s.name) : streamId;
    if (!talk) { box.append(h('span', { class: 'faint small' }, 'Starts ' + label + ' (no talk of that stream in this document).')); return box; }
    let shown = null;
    const btn = h('button', { class: 'btn subopen', type: 'button' }, 'Open subagent: ' + label);
    btn.addEventListener('click', function () {
      if (shown) { shown.remove(); shown = null; btn.textContent = 'Open subagent: ' + label; return; }
      shown = talkBlock(talk, true);
      box.append(shown);
      nestHeadings(shown);  // its heading one level under the talk holding this step, before anything can focus it
      shown._open(true);
      btn.textContent = 'Close subagent: ' + label;
    });
    box.append(btn, ' ', h('a', { class: 'small', href: '#talk=' + enc(talk.id), onclick: function (ev) { ev.preventDefault(); reveal(talk.id); } }, 'go to its talk'));
    return box;
  }

  function clipNote(n, which, target) {
    const full = which === 'text' ? n.bytes : n.result_bytes;
    const shown = utf8len(which === 'text' ? n.text : n.result);
    const note = h('div', { class: 'clip' }, 'Shows the first ' + num(shown) + ' of ' + num(full) + ' bytes. ');
    const ref = which === 'text' ? (n.ref || (n.refs && n.refs[0])) : (n.refs && n.refs[1]);
    if (ref) {
      // "Show all", and a search hit whose words are not in the bytes shown (markHit): the rest read from the record
      note._load = function () {
        note._load = null;
        note.textContent = 'Loading the rest…';
        return api(recordPath(ref)).then(function (res) {
          if (!res.ok) { note.textContent = 'The rest is not available: ' + res.error + ' (HTTP ' + res.status + ')'; return; }
          const t = fullText(res.data, ref, which);
          if (t === null) { note.textContent = 'The record holds no text for this part.'; return; }
          if (target._whole) target._whole(t); else if (target.classList.contains('md')) mdInto(target, t); else target.textContent = visibleText(t, true);
          note.textContent = 'Showing all ' + num(utf8len(t)) + ' bytes.';
        });
      };
      note.append(h('button', { class: 'linkbtn', type: 'button', onclick: function () { if (note._load) note._load(); } }, 'Show all'));
    }
    return note;
  }

  function fullText(rec, ref, which) {
    const parts = rec.parts || [];
    let p = null;
    if (ref.block !== undefined && ref.block !== null) p = parts[ref.block];
    else if (which === 'result') p = parts.filter(function (x) { return x.k === 'result'; })[0];
    if (p) return typeof p.text === 'string' && p.text ? p.text : (p.data !== undefined ? (typeof p.data === 'string' ? p.data : JSON.stringify(p.data)) : null);
    const texts = parts.filter(function (x) { return (x.k === 'text' || x.k === 'reasoning' || x.k === 'result') && x.text; }).map(function (x) { return x.text; });
    return texts.length ? texts.join('\n') : null;
  }

  function recordPath(ref) { return '/api/c/' + enc(CID) + '/record/' + ref.seq + '/' + ref.row; }

  function pre(text, cls) { return h('pre', { class: cls || null }, text); }

  function drawDetails(n, det) {
    const k = n.kind;
    if (k === 'tool' || k === 'agent.call') {
      det.append(h('h3', null, 'Input'));
      if (n.text) toolInputEl(n, det);
      else det.append(h('div', { class: 'faint' }, n.state === 'omitted' ? 'withheld' : LOST[n.state] ? lostText(n.state, n.bytes, n.sha256) : '(' + (n.state || 'none') + ')'));
      if (n.changes) add(det, stepChangesEl(n));
      det.append(h('h3', null, 'Result', n.refused ? h('span', { class: 'bad', title: REFUSED_WHY }, ' · refused') : n.failed ? h('span', { class: 'bad' }, ' · failed') : ''));
      const quiet = SHELL_TOOLS.has(n.name) && n.result !== undefined ? quietResult(n.result) : null;
      if (REPORTS[n.id]) {
        reportEl(n, det);
      } else if (quiet) {  // a shell call that printed nothing: what the runtime's result object says instead of the object
        det.append(h('div', { class: 'noout' }, '(no output)'), kv(quiet),
          h('details', { class: 'exact small' }, h('summary', null, 'The result as recorded (' + fmtBytes(utf8len(n.result)) + ')'), pre(n.result, 'result exact')));
      } else if (n.result !== undefined) {
        const p = pre(n.result, 'result');
        det.append(p);
        if (clipped(n.result, n.result_bytes)) det.append(clipNote(n, 'result', p));
      } else if (n.result_state === 'available' && n.result_bytes === 0) {
        det.append(h('div', { class: 'noout' }, '(no output)'));
      } else {
        // its text and the structured copy both taken out: each size with its own digest, the server's words (trial 47d F7)
        const gone = n.result_state === 'too_large' && n.result_taken_said ? '[' + n.result_taken_said + ']' : null;
        det.append(h('div', { class: 'faint' }, n.result_state === 'omitted' ? 'withheld' : gone || (LOST[n.result_state] ? lostText(n.result_state, n.result_bytes, n.result_sha256) : n.result_state ? '(' + n.result_state + ')' : WORDS.no_result)));
      }
      const facts = [];
      // its text kept whole, the structured copy not (trial 40c F1): the server's words (kinds.taken_said), as the exports say them
      if (n.result_taken_said && n.result_state !== 'too_large') facts.push(['result state', n.result_taken_said]);
      else if (n.result_state) facts.push(['result state', n.result_state + (n.result_bytes !== undefined ? ' · ' + fmtBytes(n.result_bytes) : '')]);
      if (n.duration_ms !== undefined) facts.push(['tool run', num(n.duration_ms) + ' ms (its own start to end, as its runtime recorded them)']);
      if (n.request_to_result_ms !== undefined) facts.push(['request to result', num(n.request_to_result_ms) + ' ms (between the two records, not tool time)']);
      else if (n.request_to_result_join) facts.push(['request to result', 'under 1 ms (between the two records, not tool time)']);
      if (n.changes) facts.push(['workspace changes', changeLinks(n)]);
      executionsOf(n).forEach(function (e) { facts.push(['execution', executionLine(e)]); });
      if (facts.length) det.append(kv(facts));
    } else if (k === 'epoch.boundary' && LINES[n.id] && n.text) {  // the adapter's reading, the record's text folded under it
      const by = Object.keys(COMPACTIONS).filter(function (st) { return COMPACTIONS[st] === n.id; })[0];
      det.append(h('div', { class: 'boundaryline' }, 'Context compacted (' + LINES[n.id] + ')'));
      const byTalk = by ? (D.streams.filter(function (st) { return st.name === by; })[0] || {}).talk : null;
      if (byTalk) det.append(h('div', { class: 'small' }, 'Made by the compaction agent: ', h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(byTalk); } }, talkTitle(byTalk))));
      det.append(h('details', { class: 'exact small' }, h('summary', null, 'The record as written (' + fmtBytes(n.bytes) + ')'), pre(n.text, 'exact')));
      if (clipped(n.text, n.bytes)) det.append(clipNote(n, 'text', det.lastChild.lastChild));
    } else if (!inlineOf(n)) {
      if (n.text) {
        // thinking is the model's Markdown: rendered as its replies are (mdInto, the same sanitiser), still folded
        // under its row (trial 43c F7: it was shown raw)
        const p = BLOCKS[n.id] ? blocksEl(BLOCKS[n.id]) : k === 'thinking' ? md(n.text, 'msg thinking') : pre(n.text);
        det.append(h('h3', null, 'Text'), p);
        if (clipped(n.text, n.bytes) && n.state !== 'omitted' && !BLOCKS[n.id]) det.append(clipNote(n, 'text', p));  // blocks are whole
      }
    }
    if (n.state === 'omitted') det.append(h('div', { class: 'box notice small' }, 'Withheld: this step carries ' + withheldFlags(n).join(', ') + '; its ' + fmtBytes(n.bytes) + ' are not shown.'));
    if (k === 'llm.call' && n.usage) {
      det.append(h('h3', null, 'Usage (tokens)'), kv([['in', num(n.usage.in)], ['out', num(n.usage.out)], ['cache read', num(n.usage.cache_read)], ['cache write', writes(n.usage)]]
        .concat(isLong(n) ? [['priced', LONG_MARK + ': ' + LONG_TITLE]] : [])));
    }
    if (n.provider_bodies) {
      det.append(h('h3', null, 'Provider bodies'));
      n.provider_bodies.forEach(function (b) {
        const out = h('div', { class: 'body-out' });
        const btn = h('button', { class: 'btn', type: 'button', onclick: function () { showBody(b, out, btn); } },
          'Show the ' + b.role + ' (seq ' + b.ref.seq + ' row ' + b.ref.row + ')');
        det.append(h('div', null, btn), out);
      });
    }
    const facts = [['id', n.id], ['kind', k]];
    if (n.stream) facts.push(['stream', n.stream === 'main' ? 'main' : streamLabel(n.stream) + ' (' + n.stream + ')']);
    if (n.at !== undefined) facts.push(['at', n.at ? fmtTime(n.at) : 'unobserved']);
    if (n.state && n.state !== 'available') facts.push(['state', n.state]);
    if (n.bytes !== undefined) facts.push(['bytes', num(n.bytes)]);
    if (n.flags) facts.push(['flags', n.flags.join(', ')]);
    if (n.duration_ms !== undefined) facts.push(['duration', num(n.duration_ms) + ' ms (' + (n.duration_measured_by || '') + ')']);
    if (n.dropped) facts.push(['dropped', n.dropped.map(function (x) { return x.what + ' (' + fmtBytes(x.bytes) + (x.why ? ': ' + x.why : '') + ')'; }).join('; ')]);
    if (n.attrs) Object.keys(n.attrs).forEach(function (a) { const v = n.attrs[a]; facts.push([a, typeof v === 'object' ? JSON.stringify(v) : String(v)]); });
    const edges = n.edges && n.edges.length ? [h('h3', null, 'Edges'), edgesLine(n.edges)] : [];
    if (k === 'tool' || k === 'agent.call' || (!inlineOf(n) && !CONTAINERS[k] && n.text)) {  // the text first; the facts fold under it
      det.append(h('details', { class: 'facts' }, h('summary', null, 'Facts (' + num(facts.length) + ')' + (edges.length ? ' and edges' : '')), kv(facts), edges));
    } else {
      det.append(h('h3', null, 'Facts'), kv(facts), edges);
    }
    det.append(h('div', { style: null }, h('button', { class: 'btn evidence', type: 'button', onclick: function () { evidence(n); } }, 'Evidence')));
  }

  // A provider body rebuilt by the server: what the runtime sent or got back, the system prompt and the
  // tool schemas collapsed (seed 004, Provider bodies).
  function showBody(b, out, btn) {
    clear(out);
    out.append(h('p', { class: 'faint' }, 'Rebuilding…'));
    api('/api/c/' + enc(CID) + '/body/' + b.ref.seq + '/' + b.ref.row).then(function (res) {
      clear(out);
      if (!res.ok) { out.append(h('div', { class: 'box notice small' }, 'Not served (' + res.status + '): ' + res.error)); return; }
      const d = res.data, body = d.body;
      out.append(h('div', { class: 'mono faint small' }, d.role + ' · ' + fmtBytes(d.bytes) + ' · sha256 ' + d.sha256.slice(0, 16) + '…'));
      if (body && typeof body === 'object' && !Array.isArray(body)) {
        Object.keys(body).forEach(function (key) {
          const text = JSON.stringify(body[key], null, 1);
          if (key === 'system' || key === 'tools') {
            out.append(h('details', null, h('summary', null, key + ' (' + fmtBytes(text.length) + ')'), pre(text)));
          } else {
            out.append(h('h4', null, key), pre(text));
          }
        });
      } else {
        out.append(pre(jsonText(body, 1)));
      }
      nestHeadings(out);
      btn.disabled = true;
    });
  }

  function kv(pairs) {
    const dl = h('dl', { class: 'kv' });
    pairs.forEach(function (p) { dl.append(h('dt', null, p[0]), h('dd', null, p[1])); });
    return dl;
  }

  function edgesLine(edges) {
    const ul = h('ul', { class: 'small' });
    edges.forEach(function (e) {
      const target = IDX.nodes.has(e.other) || IDX.streamTalk.has(e.other) ? h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(IDX.streamTalk.get(e.other) || e.other); } }, e.other) : h('span', { class: 'mono' }, e.other);
      ul.append(h('li', null, e.dir === 'out' ? e.type + ' → ' : e.type + ' ← ', target, h('span', { class: 'faint' }, ' · ' + e.quality + (e.via ? ' · ' + e.via : ''))));
    });
    return ul;
  }

  // Opens the talk holding ``id`` (a talk or a step), expands the step and scrolls to it.
  function reveal(id) {
    if (!IDX.talkOf.has(id) && !talkEls.has(id) && IDX.nodes.has(id)) return revealLoose(id);
    const talkId = IDX.talkOf.get(id) || id;
    if (currentTab !== 'talks') showTab('talks');
    const tel = talkEls.get(talkId);
    if (!tel) return null;
    tel._open(true);
    setHash({ talk: talkId, step: id !== talkId ? id : null });
    let target = tel;
    if (id !== talkId) {
      const nel = drawnTo(tel, id);  // the pages up to it drawn
      if (nel) {
        for (let p = nel.parentElement; p && p !== tel; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
        nel._toggle(true); target = nel; markTarget(nel);
      }
    }
    target.scrollIntoView({ block: 'start' });
    focusStep(target);
    return target;
  }
  // The step (its row) or the talk (its button) a link or a search hit opened takes keyboard focus (trial 28b, F5:
  // focus stayed on <body>, and a screen reader heard only the page's title).
  function focusStep(el) {
    const f = el.matches('section.talk') ? el.querySelector('.talkhead') : el.querySelector(':scope > .row');
    if (f) f.focus({ preventScroll: true });
  }
  // A step under no talk (a compaction's boundary and summary, context injected between talks) is on the Loose tab:
  // that tab is opened and the step expanded and marked there (a search hit on one opened the page at its top).
  function revealLoose(id) {
    showTab('loose');
    setHash({ tab: 'loose', step: id });
    const nel = drawnIn(panel, null, id);
    if (!nel) return null;
    for (let p = nel.parentElement; p && p !== panel; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
    nel._toggle(true); markTarget(nel);
    nel.scrollIntoView({ block: 'start' });
    focusStep(nel);
    return nel;
  }
  // The address's step opened, and with a search hit's query (#step=…&q=…) its words marked in it (markHit).
  function revealHash(hp) {
    const el = reveal(hp.step || hp.talk);
    if (el && hp.step && hp.q) markHit(el, hp.q);
  }
  // The terms of a query in asz search's syntax (words, "phrases", prefix*), its -word and NOT word left out, OR and
  // AND dropped, as a case-blind pattern over text (a prefix matching the start of a word and more, as the index does).
  function hitPattern(q) {
    const terms = [];
    let skip = false;
    (String(q || '').match(/-?"[^"]*"|\S+/g) || []).forEach(function (t) {
      if (skip) { skip = false; return; }
      if (t === 'NOT') { skip = true; return; }
      if (t === 'OR' || t === 'AND' || t.charAt(0) === '-') return;
      t = t.replace(/^"|"$/g, '').replace(/\*$/, '').trim();
      if (t) terms.push(t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+'));
    });
    return terms.length ? new RegExp(terms.join('|'), 'giu') : null;
  }
  // Wraps each match of ``re`` in the text nodes of step ``el`` (not of the steps under it) in <mark class="hitword">
  // around a text node, never as markup; the first such mark, or null.
  function markIn(el, re) {
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT), nodes = [];
    for (let t = walk.nextNode(); t; t = walk.nextNode()) {
      const p = t.parentElement;
      if (p && p.closest('.node') === el && !p.closest('mark.hitword')) nodes.push(t);
    }
    let first = null;
    nodes.forEach(function (t) {
      const s = t.nodeValue, frag = document.createDocumentFragment();
      let at = 0, m;
      re.lastIndex = 0;
      while ((m = re.exec(s))) {
        if (!m[0]) { re.lastIndex++; continue; }
        const mk = h('mark', { class: 'hitword' }, m[0]);
        frag.append(s.slice(at, m.index), mk);
        first = first || mk;
        at = m.index + m[0].length;
      }
      if (at) { frag.append(s.slice(at)); t.replaceWith(frag); }
    });
    return first;
  }
  // A search hit's step (trial 44b F1): each occurrence of the query's words marked and the first scrolled to; where
  // none is in the bytes a clipped text shows, its rest is read (as "Show all" reads it) and marked.
  function markHit(el, q) {
    const re = hitPattern(q);
    if (!re) return;
    const show = function (m) {
      for (let p = m.parentElement; p && p !== el; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
      m.scrollIntoView({ block: 'center' });
    };
    const first = markIn(el, re);
    if (first) { show(first); return; }
    const notes = Array.prototype.filter.call(el.querySelectorAll('.clip'), function (x) { return x._load && x.closest('.node') === el; });
    Promise.all(notes.map(function (x) { return x._load(); })).then(function () { const m = markIn(el, re); if (m) show(m); });
  }
  function markTarget(el) {
    document.querySelectorAll('.node.target').forEach(function (x) { x.classList.remove('target'); });
    el.classList.add('target');
  }
  function cssEscape(s) { return (window.CSS && CSS.escape) ? CSS.escape(s) : String(s).replace(/["\\]/g, '\\$&'); }

  // ------------------------------------------------------------------ evidence

  function evidence(n) {
    const refs = [];
    const seen = {};
    [n.ref].concat(n.refs || []).forEach(function (r) {
      if (!r) return;
      const key = r.seq + ':' + r.row + ':' + (r.block === undefined ? '' : r.block);
      if (!seen[key]) { seen[key] = 1; refs.push(r); }
    });
    const body = drawer.querySelector('.dbody');
    clear(body);
    drawer.querySelector('.dtitle').textContent = 'Evidence · ' + kindLabel(n);
    body.append(h('div', { class: 'mono muted' }, n.id));
    if (!refs.length) body.append(h('p', { class: 'faint' }, 'This node names no record.'));
    refs.forEach(function (r) {
      const f = IDX.fileBySeq.get(r.seq);
      const sec = h('section', { class: 'evrec' }, h('h2', null, 'seq ' + r.seq + ' · row ' + r.row + (r.block !== undefined ? ' · block ' + r.block : '')),
        h('div', { class: 'mono faint' }, f ? f.file + ' (' + f.kind + ')' : 'file seq ' + r.seq));
      const out = h('div', null, h('p', { class: 'faint' }, 'Loading…'));
      sec.append(out);
      body.append(sec);
      api(recordPath(r)).then(function (res) {
        clear(out);
        if (!res.ok) { out.append(errorBox('The server refused this record.', res)); return; }
        out.append(pre(jsonText(res.data, 2), 'record'));
      });
    });
    if (!drawer.classList.contains('open')) OPENER = document.activeElement;
    drawer.classList.add('open');
    drawer.querySelector('.dclose').focus();
  }
  // Closing the drawer (Close, Escape) gives focus back to the button that opened it (trial 28b, F5: it fell to <body>).
  let OPENER = null;
  function closeDrawer() {
    if (!drawer.classList.contains('open')) return;
    drawer.classList.remove('open');
    if (OPENER && OPENER.isConnected) OPENER.focus();
    OPENER = null;
  }
  drawer.querySelector('.dclose').addEventListener('click', closeDrawer);
  document.addEventListener('keydown', function (ev) { if (ev.key === 'Escape') closeDrawer(); });

  // ------------------------------------------------------------------ other tabs

  function table(headers, rows, numeric) {
    const tb = h('tbody');
    rows.forEach(function (r) { tb.append(h('tr', null, r.map(function (c, i) { return h('td', { class: numeric && numeric[i] ? 'num' : null }, c); }))); });
    return h('div', { class: 'tablewrap' }, h('table', null, h('thead', null, h('tr', null, headers.map(function (x, i) { return h('th', { class: numeric && numeric[i] ? 'num' : null }, x); }))), tb));
  }
  function paged(headers, rows, numeric, page) {
    page = page || 300;
    const holder = h('div');
    let n = Math.min(page, rows.length);
    function draw() {
      clear(holder);
      holder.append(table(headers, rows.slice(0, n), numeric));
      if (n < rows.length) holder.append(h('p', null, h('button', { class: 'btn', type: 'button', onclick: function () { n = Math.min(rows.length, n + page * 4); draw(); } }, 'Show more (' + num(rows.length - n) + ' left)')));
    }
    draw();
    return holder;
  }
  function talkLink(id) { return id ? h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(id); } }, oneLine(talkTitle(id), 60)) : '—'; }
  function talkTitle(id) { const t = D.talks[IDX.talkIndex.get(id)]; return t ? (heading(t) || (t.child ? 'Subagent: ' + streamLabel(t.stream) : id)) : id; }

  function drawStreams() {
    panel.append(table(['Stream', 'Role', 'Label', 'Parent', 'Records', 'Steps', 'First talk', 'Opened by'], D.streams.map(function (s) {
      return [h('span', { class: 'mono' }, s.name), s.role, s.label || '', s.parent || '', num(s.records), num(s.steps), talkLink(s.talk),
        s.opened_by.length ? s.opened_by.map(function (o, i) { return [i ? ', ' : '', h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(o.step); } }, o.step)]; }) : '—'];
    }), [0, 0, 0, 0, 1, 1, 0, 0]));
  }
  function drawSegments() {
    panel.append(table(['Segment', 'State', 'Committable', 'Talks', 'From', 'To'], D.segments.map(function (s) {
      return [h('span', { class: 'mono' }, s.id), s.state || '', s.committable ? 'yes' : 'no', num(s.talks), fmtTime(s.from), fmtTime(s.to)];
    }), [0, 0, 0, 1, 0, 0]));
  }
  function drawRounds() {
    panel.append(table(['Round', 'Verified', 'Seqs', 'From', 'Through', 'Digest', 'Previous'], D.rounds.map(function (r) {
      return [num(r.round), r.verified ? h('span', { class: 'state verified' }, 'verified') : h('span', { class: 'state mismatch' }, 'not verified'),
        r.from_seq === null ? '—' : r.from_seq + '–' + r.through_seq, fmtTime(r.from_time), fmtTime(r.through_time),
        h('span', { class: 'mono' }, short(r.digest)), h('span', { class: 'mono' }, short(r.previous))];
    }), [1, 0, 0, 0, 0, 0, 0]));
  }
  function drawFiles() {
    panel.append(paged(['File', 'Kind', 'Seq / round', 'Stream / run', 'Lines', 'Bytes', 'Digest', 'From', 'Through'], D.files.map(function (f) {
      return [h('span', { class: 'mono' }, f.file), f.kind, f.seq !== null ? 'seq ' + f.seq : 'round ' + f.round, f.stream || f.run || '—',
        num(f.lines), fmtBytes(f.bytes), f.problem ? h('span', { class: 'bad unverified', title: f.problem }, 'does not verify: ' + f.problem) :
          h('span', { class: 'mono' }, short(f.digest)), fmtTime(f.from_time), fmtTime(f.through_time)];
    }), [0, 0, 0, 0, 1, 1, 0, 0, 0]));
  }
  function drawRelations() {
    panel.append(paged(['Type', 'From', 'To', 'Quality', 'Via', 'Evidence'], D.relations.map(function (r) {
      return [r.type, h('span', { class: 'mono' }, r.from), h('span', { class: 'mono' }, r.to), r.quality, r.via,
        r.evidence.map(function (e) { return e.seq + ':' + e.row + (e.block !== undefined ? ':' + e.block : ''); }).join(' ')];
    })));
  }
  function drawLoose() {
    const loose = D.loose || [];
    if (!loose.length) { panel.append(h('p', { class: 'muted' }, 'Every step belongs to a talk.')); return; }
    panel.append(h('p', { class: 'muted small' }, 'Runs and steps outside any talk (a compaction, context injected between talks); those of a stream with talks are also drawn in place, in the talk where they happened.'));
    appendSteps(panel, loose);
  }
  // The document's unresolved entries of one part of the server's split (UNRES: 'open', still open; 'placed', a
  // compaction agent's stream, which no call starts, listed apart under the compaction it made; 'resolved', by a later
  // round); the document keeps them all. Without the split (the headings did not come) every entry counts as open.
  function unresolvedAs(part) {
    if (!UNRES) return part === 'open' ? D.unresolved : [];
    const ids = UNRES[part] || [];
    return D.unresolved.filter(function (u) { return ids.indexOf(u.id) >= 0; });
  }
  function placedUnresolved() { return unresolvedAs('placed'); }
  function drawUnresolved() {
    const placed = placedUnresolved(), open = unresolvedAs('open'), resolved = unresolvedAs('resolved');
    const row = function (u) { return [h('span', { class: 'mono' }, u.id), u.kind, u.reason, u.state, u.ref ? JSON.stringify(u.ref) : '—']; };
    if (!open.length) panel.append(h('p', { class: 'muted' }, 'Nothing unresolved.'));
    else panel.append(table(['Id', 'Kind', 'Reason', 'State', 'Ref'], open.map(row)));
    if (resolved.length) {
      panel.append(h('h2', null, 'Resolved'), h('p', { class: 'muted small', id: 'resolved-unresolved' },
        'Entries an earlier round could not join, which a later round joined; not counted as unresolved.'));
      panel.append(table(['Id', 'Kind', 'Reason', 'State', 'Ref'], resolved.map(row)));
    }
    if (!placed.length) return;
    panel.append(h('h2', null, 'Placed'), h('p', { class: 'muted small', id: 'placed-unresolved' },
      'The document lists these as unresolved; the page places them: the compaction agent\'s stream, which no call starts, made the compaction drawn in its talk.'));
    panel.append(table(['Id', 'Kind', 'Reason', 'Placed at'], placed.map(function (u) {
      const b = COMPACTIONS[u.ref], line = LINES[b];
      return [h('span', { class: 'mono' }, u.id), u.kind, u.reason, h('a', { href: '#', class: 'placedat', onclick: function (ev) { ev.preventDefault(); reveal(b); } },
        'Context compacted' + (line ? ' (' + line + ')' : '') + ' · ' + b)];
    })));
  }
  function drawUndescribed() {
    const u = D.undescribed || [];
    panel.append(h('p', { class: 'muted small' }, 'Bytes the adapter could not describe, kept verbatim in unknown parts. Open the record to see them.'));
    if (!u.length) { panel.append(h('p', { class: 'muted' }, 'Every landed byte was described.')); return; }
    panel.append(table(['Ref', 'Stream', 'Reason', 'Bytes', 'Node'], u.map(function (e) {
      const ref = e.ref.seq + '/' + e.ref.row + ':' + e.ref.block;
      return [h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); evidence({ id: 'undescribed ' + ref, kind: 'undescribed', ref: { seq: e.ref.seq, row: e.ref.row, block: e.ref.block } }); } }, ref),
        e.stream || '—', e.reason, num(e.bytes), e.node ? h('span', { class: 'mono' }, e.node) : '—'];
    })));
  }
  function drawChanges() {
    const wc = D.workspace_changes || [], te = D.tool_executions || [];
    panel.append(h('h2', null, 'Workspace changes'));
    const nd = D.summary.changes_not_derived || 0;
    if (nd) {  // editing tool calls that returned with no changes record (a Claude Code subagent's edits)
      panel.append(h('p', { class: 'box notice', id: 'not-derived' }, num(wc.length) + ' change' + (wc.length === 1 ? '' : 's') + ' (+' + num(nd) +
        ' not derived): ' + num(nd) + ' editing tool call' + (nd === 1 ? '' : 's') + ' returned with no changes record, so what ' +
        (nd === 1 ? 'it' : 'they') + ' changed is not derived and not listed here (the transcript that recorded the call carries no changes record for it: a subagent\'s edits, a file write its runtime recorded without one).'));
    }
    if (!wc.length) panel.append(h('p', { class: 'muted' }, 'None recorded.'));
    else {
      add(panel, drawChangeList(wc));
      const at = hashParams().change;
      if (at && /^\d{1,9}$/.test(at) && +at < wc.length) focusChange(+at);
    }
    if (te.length) panel.append(h('p', { class: 'muted small' }, num(te.length) + ' tool execution' + (te.length === 1 ? '' : 's') + ' on the ',
      h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); showTab('executions'); } }, 'Hook executions'), ' tab.'));
  }
  // The tool_executions entries (execution/1 records: asz hook's MCP calls) as a table a reader reads: the step, the
  // tool, the server, the outcome (a failure marked), the runtime's duration, who observed it and when; the record
  // whole folds under each (trial 23a, F3: a hook-only session showed them only as JSON, under Changes)
  // summary.calls_by_tool: the conversation's tool calls per tool name, most first (asz conversation's tools line; trial 30b F2)
  function drawTools() {
    const tl = (D.summary || {}).calls_by_tool || [];
    if (!tl.length) { panel.append(h('p', { class: 'muted' }, 'No tool call recorded.')); return; }
    panel.append(h('p', { class: 'muted small' }, 'Calls: the transcript\'s tool calls, each tool use id once; Failed: those whose result says it failed (is_error), a refused one not counted; Refused: those the person refused (the runtime\'s fixed answer, as asz usage tools\' REFUSED); Hook records: asz hook\'s execution records of the tool (MCP calls, on the Hook executions tab). Over a root: asz usage tools.'));
    // Refused after Failed, as asz usage tools' table has it (trial 38a F4: a refusal is no failure)
    const t = paged(['Tool', 'MCP server', 'Calls', 'Failed', 'Refused', 'Hook records'], tl.map(function (r) {
      return [r.name || '—', r.server || '—', num(r.calls), num(r.failed), num(r.refused || 0), num(r.executions)];
    }));
    t.id = 'tools';
    panel.append(t);
  }
  function drawExecutions() {
    const te = D.tool_executions || [];
    panel.append(h('p', { class: 'muted small' }, 'The execution records asz hook wrote around MCP tool calls (its server, outcome, duration): not every tool call; the Tools tab counts those.'));
    if (!te.length) { panel.append(h('p', { class: 'muted' }, 'None recorded.')); return; }
    panel.append(executionTable(te));
  }
  function executionTable(te) {
    const t = paged(['Step', 'Time', 'Tool', 'Server', 'Outcome', 'Duration', 'Observed by', 'Arguments', 'Against the transcript', 'The record'], te.map(function (e) {
      const sv = e.server && typeof e.server === 'object' ? e.server : {};
      return [e.step ? h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(e.step); } }, e.step) : h('span', { class: 'faint', title: 'no tool step of a transcript names this call' }, 'no step'),
        e.time || '—', e.tool_name || e.tool || '—',
        sv.name ? (e.protocol ? String(e.protocol).toUpperCase() + ' ' : '') + sv.name + (sv.source ? ' (' + sv.source + ')' : '') : '—',
        e.outcome ? h('span', { class: e.outcome !== 'returned' ? 'tag exec failed' : 'tag exec', title: outcomeSaid(e) }, e.outcome + (e.failure && e.failure !== e.outcome ? ' (' + e.failure + ')' : '')) : h('span', { class: 'faint' }, 'not said'),
        Number.isInteger(e.duration_ms) ? num(e.duration_ms) + ' ms' : '—',
        [e.observed_by, e.boundary].filter(Boolean).join(', ') || '—',
        argumentsCell(e),
        heldCell(e),
        h('details', { class: 'fold' }, h('summary', null, 'JSON'), pre(jsonText(e, 1)))];
    }));
    t.id = 'executions';
    return t;
  }
  // ------------------------------------------------------------------ workspace changes as diffs (trial 17b, F11)
  // A change is drawn from its changes/1 record as the document holds it (seed 004, Workspace changes): each file's
  // path, operation, additions and deletions, and its hunks' lines ("-", "+", " "), each line a text node. The page
  // computes no diff: a file whose record holds no lines (diff binary, too_large, unavailable) says so, and an editing
  // call with no changes record shows its input's fields as text (old_string beside new_string), never a diff.
  let CHG = null, CHG_OF = null;
  // {step id: [index in workspace_changes]}: one entry per change id, the first listed (the runtime's, seed 004)
  function changesOf(stepId) {
    if (CHG !== D) {
      CHG = D; CHG_OF = new Map();
      const seen = new Set();
      (D.workspace_changes || []).forEach(function (c, i) {
        if (!c.step || seen.has(c.step + '\u0000' + c.id)) return;
        seen.add(c.step + '\u0000' + c.id);
        if (!CHG_OF.has(c.step)) CHG_OF.set(c.step, []);
        CHG_OF.get(c.step).push(i);
      });
    }
    return CHG_OF.get(stepId) || [];
  }
  const NO_LINES = { binary: 'a binary file: no lines to show', too_large: 'its lines were too large to land and are not kept',
    unavailable: 'its record keeps no lines' };
  function fileDiffEl(f) {
    const counts = f.additions === null || f.additions === undefined ? null
      : h('span', { class: 'counts' }, h('span', { class: 'adds' }, '+' + num(f.additions)), ' ', h('span', { class: 'dels' }, '\u2212' + num(f.deletions || 0)));
    const box = h('div', { class: 'filediff', 'data-path': f.path },
      h('div', { class: 'fhead' }, h('span', { class: 'mono fpath' }, f.path), ' ', h('span', { class: 'faint' }, (f.operation || '') + (f.before && f.before.present === null ? ' (the file before it: not recorded)' : '')), ' ', counts,
        f.attribution === 'shared' ? h('span', { class: 'faint' }, ' · shared with ' + (f.windows || []).join(', ')) : ''));
    if (f.diff !== 'available' || !f.hunks) {
      box.append(h('div', { class: 'faint small nolines' }, 'No lines: ' + (NO_LINES[f.diff] || 'diff ' + (f.diff || 'not recorded'))));
      return box;
    }
    const lines = h('div', { class: 'difflines' });
    f.hunks.forEach(function (k) {
      lines.append(h('div', { class: 'dl hunk' }, '@@ -' + k.old_start + ',' + k.old_lines + ' +' + k.new_start + ',' + k.new_lines + ' @@'));
      (k.lines || []).forEach(function (l) {
        const c = l.charAt(0);
        lines.append(h('div', { class: 'dl ' + (c === '+' ? 'add' : c === '-' ? 'del' : 'ctx') }, l));
      });
    });
    box.append(lines);
    return box;
  }
  // One workspace_changes entry: a link to its step, when and how it was captured, then each file's diff.
  function changeEl(c, i, fromStep) {
    const sec = h('section', { class: 'change', id: 'change-' + i, 'data-change': String(i) });
    const stepLink = c.step ? h('a', { class: 'tostep', href: '#', onclick: function (ev) { ev.preventDefault(); setHash({ change: null }); reveal(c.step); } }, c.step) : '—';
    const toTab = h('a', { class: 'tochange', href: '#tab=changes&change=' + i, onclick: function (ev) { ev.preventDefault(); showChange(i); } }, 'on the Changes tab');
    sec.append(h('div', { class: 'chead small' }, fromStep ? toTab : stepLink, ' · ', c.tool_name || '', ' · ', c.time || '—',
      h('span', { class: 'faint' }, ' · ' + [c.captured_by, c.basis, c.coverage].filter(Boolean).join(' · '))));
    if (c.basis === 'skipped_read_only') sec.append(h('div', { class: 'faint small' }, 'Not observed (a read-only call): this says nothing about what it changed.'));
    (c.changes || []).forEach(function (f) { sec.append(fileDiffEl(f)); });
    if (!fromStep) sec.append(h('details', { class: 'facts' }, h('summary', null, 'The record'), pre(jsonText(c, 1))));
    return sec;
  }
  // Opens the Changes tab at entry i (its address: #tab=changes&change=i), drawn, marked and scrolled to.
  function showChange(i) { setHash({ change: String(i) }); showTab('changes'); }
  function focusChange(i) {
    const el = drawChangesUpTo(i);
    if (el) { document.querySelectorAll('section.change.target').forEach(function (x) { x.classList.remove('target'); }); el.classList.add('target'); el.scrollIntoView({ block: 'start' }); }
  }
  let drawChangesUpTo = function () { return null; };
  function drawChangeList(wc) {
    const holder = h('div', { id: 'changes' }), more = h('p');
    let n = 0;
    function upTo(last) {
      while (n < wc.length && n <= last) { holder.append(changeEl(wc[n], n, false)); n++; }
      clear(more);
      if (n < wc.length) more.append(h('button', { class: 'btn', type: 'button', onclick: function () { upTo(n + 99); } }, 'Show more (' + num(wc.length - n) + ' left)'));
      return holder.querySelector('#change-' + last);
    }
    upTo(99);
    drawChangesUpTo = upTo;
    return [holder, more];
  }
  // A tool call's input as fields (docs/view.md, "Tool inputs"), read from the step's text; null when the text is not a
  // JSON object (clipped, or not JSON). A shell call (RULES.shell_tools) shows its command as a code block, its
  // description as a line, the other keys as facts. Any other shows the path first, then each text pair side by side
  // (RULES.pairs; a MultiEdit edit as RULES.edit_pair), a long or multi-line text (Write's content) as a block, the rest
  // as facts (a list or an object as its JSON).
  // The lists and limits are asz_core/view/placing.py's, the one source (page_rules): the server writes them here as
  // it serves this script (asz_core/view/page.py), so the page and the exports read a tool's input by the same rules.
  const RULES = {/* placing.page_rules() */};
  const SHELL_TOOLS = new Set(RULES.shell_tools || []);
  const PAIRS = RULES.pairs || [];
  function isPath(k) { return (RULES.path_keys || []).indexOf(k) >= 0 || k.endsWith(RULES.path_suffix); }
  function inputFieldsEl(text, name, ask) {
    let v;
    try { v = JSON.parse(text); } catch (e) { return null; }
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
    const box = h('div', { class: 'editinput' + (SHELL_TOOLS.has(name) ? ' shellinput' : '') }), facts = [];
    if (SHELL_TOOLS.has(name) && typeof v.command === 'string') {
      box.append(pre(v.command, 'field command'));
      if (typeof v.description === 'string') box.append(h('div', { class: 'desc' }, v.description));
      Object.keys(v).forEach(function (k) { if (k !== 'command' && !(k === 'description' && typeof v.description === 'string')) facts.push([k, factText(v[k])]); });
      if (facts.length) box.append(kv(facts));
      return box;
    }
    const pair = PAIRS.filter(function (p) { return typeof v[p[0]] === 'string' && typeof v[p[1]] === 'string'; })[0];
    const keys = Object.keys(v).sort(function (a, b) { return (isPath(b) ? 1 : 0) - (isPath(a) ? 1 : 0); });
    keys.forEach(function (k) {
      const x = v[k];
      if (ask && k === ask.key) box.append(h('div', { class: 'faint small' }, k), askPointer(ask));
      else if (pair && k === pair[0]) box.append(pairEl(v, pair));
      else if (pair && k === pair[1]) return;
      else if (k === 'edits' && Array.isArray(x)) x.forEach(function (e, j) {
        box.append(h('div', { class: 'faint small' }, 'edit ' + (j + 1) + ' of ' + x.length + (e && e.replace_all ? ' · replace_all' : '')));
        box.append(e && typeof e === 'object' ? pairEl(e, RULES.edit_pair) : pre(jsonText(e)));
      });
      else if (typeof x === 'string' && (x.indexOf('\n') >= 0 || (x.length > RULES.block_chars && !isPath(k)))) box.append(h('div', { class: 'faint small' }, k), pre(x, 'field'));
      else facts.push([k, factText(x)]);
    });
    if (facts.length) box.insertBefore(kv(facts), box.firstChild);
    return box;
  }
  // A todo list, an edit or a file written (DRAWN, tool_drawn.py) as the exports draw them (docs/view.md, "Tool
  // inputs"): the input's other keys as facts, then a checklist (each todo's mark, its content, in progress, its active
  // form where it differs and its other keys said after it), each edit's unified diff of old to new under the file's
  // path (every line a text node, as the Changes tab's), or the file's content as a block naming its language.
  const TODO_MARKS = { 'x': '\u2611', '~': '\u25d0', ' ': '\u2610', '?': '?' };
  function todoSaid(t) {
    const bits = t.status === 'in_progress' ? ['in progress'] : t.mark === '?' ? ['status: ' + t.status] : [];
    if (t.active_form !== undefined) bits.push('shown as: ' + t.active_form);
    (t.other || []).forEach(function (kvp) { bits.push(kvp[0] + ': ' + kvp[1]); });
    return bits.join('; ');
  }
  function drawnInputEl(d) {
    const box = h('div', { class: 'editinput drawninput' }), kind = Object.keys(d)[0], x = d[kind];
    if ((x.facts || []).length) box.append(kv(x.facts));
    if (kind === 'todos') {
      box.append(h('ul', { class: 'todos' }, x.todos.map(function (t) {
        const said = todoSaid(t);
        return h('li', { class: 'todo', 'data-status': t.status }, h('span', { class: 'mark', title: t.status }, TODO_MARKS[t.mark] || '?'), ' ',
          h('span', { class: 'what' }, t.content), said ? h('span', { class: 'faint small' }, ' (' + said + ')') : '');
      })));
    } else if (kind === 'diff') {
      const fd = h('div', { class: 'filediff', 'data-path': x.path }, h('div', { class: 'fhead' }, h('span', { class: 'mono fpath' }, x.path)));
      x.edits.forEach(function (e) {
        if (e.note) fd.append(h('div', { class: 'faint small' }, e.note));
        const lines = h('div', { class: 'difflines' });
        if (!e.lines.length) lines.append(h('div', { class: 'dl ctx faint' }, e.same));
        e.lines.slice(2).forEach(function (l) {
          const c = l.charAt(0);
          lines.append(h('div', { class: 'dl ' + (c === '+' ? 'add' : c === '-' ? 'del' : c === '@' ? 'hunk' : 'ctx') }, l));
        });
        fd.append(lines);
      });
      box.append(fd);
    } else {
      box.append(h('div', { class: 'faint small' }, 'content' + (x.language ? ' (' + x.language + ')' : '')), pre(x.content, 'field write'));
    }
    return box;
  }
  // A call's result that is its subagent's report (REPORTS), drawn once, in the subagent's talk: a line naming where
  // (its last message, or its output when that repeats no message), then what the result holds after the report (Claude
  // Code's agentId and usage lines); the result as recorded folds under them, "Show all" for one the document clipped.
  function reportEl(n, det) {
    const r = REPORTS[n.id], said = REPEATS[r.output] || [r.output];
    det.append(h('div', { class: 'msg faint report' }, '(the subagent\'s report: the same text as its last message ',
      said.map(function (m, i) { return [i ? ', ' : '', h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(m); } }, m)]; }),
      ', in its talk ', h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(r.talk); } }, talkTitle(r.talk)), ')'));
    if (r.rest) det.append(pre(r.rest, 'result rest'));
    const p = pre(n.result, 'result exact');
    det.append(h('details', { class: 'exact small' }, h('summary', null, 'The result as recorded (' + fmtBytes(n.result_bytes) + ')'), p));
    if (clipped(n.result, n.result_bytes)) det.lastChild.append(clipNote(n, 'result', p));
  }
  // The subagent's prompt a call's input holds (ASKS), drawn once, at the head of its talk: a line naming where.
  function askPointer(ask) {
    return h('div', { class: 'msg faint asks' }, '(the subagent\'s prompt, drawn once: what its talk ',
      h('a', { href: '#', onclick: function (ev) { ev.preventDefault(); reveal(ask.talk); } }, talkTitle(ask.talk)), ' was asked, at its head)');
  }
  // The facts of a shell call's result that is the runtime's result object with an empty stdout and stderr (Claude
  // Code's toolUseResult when Bash printed nothing: interrupted, noOutputExpected, an exit code): [[key, value]], the
  // empty streams left out; null for any other result (text, clipped, or an object with output).
  function quietResult(text) {
    let v;
    try { v = JSON.parse(text); } catch (e) { return null; }
    if (!v || typeof v !== 'object' || Array.isArray(v) || v.stdout !== '' || !(v.stderr === '' || v.stderr === undefined)) return null;
    return Object.keys(v).filter(function (k) { return k !== 'stdout' && k !== 'stderr'; }).map(function (k) { return [k, factText(v[k])]; });
  }
  function factText(x) { return typeof x === 'string' ? x : jsonText(x); }
  function pairEl(e, keys) {
    return h('div', { class: 'oldnew' }, h('div', null, h('div', { class: 'faint small' }, keys[0]), pre(String(e[keys[0]]), 'field old')),
      h('div', null, h('div', { class: 'faint small' }, keys[1]), pre(String(e[keys[1]]), 'field new')));
  }
  // A tool step's input as its fields (its whole text read on "Show all" when the document clipped it, then drawn as
  // fields), the exact text it holds folded under them; a text that is no JSON object as the text it is. Then, for a
  // step whose change is in workspace_changes, that change's diff.
  // A call whose input holds its subagent's prompt (ASKS) draws its fields from the server's reading of it, whole.
  function toolInputEl(n, det) {
    const el = h('div', { class: 'editholder' }), ask = ASKS[n.id];
    function draw(t) {
      const fields = !ask && DRAWN[n.id] ? drawnInputEl(DRAWN[n.id]) : inputFieldsEl(ask ? JSON.stringify(ask.input) : t, n.name, ask);
      if (!fields) { el.append(pre(t, 'input')); return; }
      el.append(fields, h('details', { class: 'exact small' }, h('summary', null, 'The input as recorded (' + fmtBytes(utf8len(t)) + ')'), pre(t, 'exact')));
    }
    draw(n.text);
    el._whole = function (t) { clear(el); draw(t); };
    det.append(el);
    if (clipped(n.text, n.bytes)) det.append(clipNote(n, 'text', el));
  }
  // The execution records joined to a tool step (n.executions: ids of D.tool_executions, one entry an id; trial 20, F5):
  // the server, the runtime's duration and the outcome, said as export_blocks.execution_line says them.
  function executionsOf(n) {
    if (!n.executions) return [];
    const te = D.tool_executions || [];
    return n.executions.map(function (id) { return te.filter(function (e) { return e.id === id; })[0]; }).filter(Boolean);
  }
  function executionLine(e) {
    const sv = e.server && typeof e.server === 'object' ? e.server : {};
    let who = sv.name ? ((e.protocol ? String(e.protocol).toUpperCase() + ' ' : '') + 'server ' + sv.name) : 'executed';
    if (sv.source) who += ' (' + sv.source + ')';
    const took = Number.isInteger(e.duration_ms) ? ' in ' + num(e.duration_ms) + ' ms' : '';
    const seen = [e.boundary, e.time].filter(Boolean).join(', ');
    return who + ': ' + outcomeSaid(e) + took + (e.observed_by ? ', observed by ' + e.observed_by : '') + (seen ? ' (' + seen + ')' : '') + argumentsSaid(e)
      + transcriptSaid(e) + (e.observed_again ? '; ' + againSaid(e) : '');
  }
  // e.transcript_check (trial 30c F3): each check that differs, said as export_blocks.held_said says it.
  function heldSaid(e, what) {
    const tc = e.transcript_check && typeof e.transcript_check === 'object' ? e.transcript_check : {};
    const c = tc[what] && typeof tc[what] === 'object' ? tc[what] : {};
    if (c.result !== 'differ') return '';
    const t = c.transcript;
    if (what === 'name') return "the tool name differs from the transcript's (the hook saw " + (e.tool_name || '?') + ", the transcript's call is " + t + ')';
    if (what === 'outcome') return "the outcome differs from the transcript's (the hook saw " + e.outcome + ", the transcript's tool result is " + (t === 'failed' ? 'an error' : 'not an error') + ')';
    const a = e.result || {}, tt = t && typeof t === 'object' ? t : {};
    return "the result differs from the transcript's tool result" + (Number.isInteger(a.bytes) && Number.isInteger(tt.bytes) ? ' (' + num(a.bytes) + " bytes, the transcript's " + num(tt.bytes) + ')' : '');
  }
  function transcriptSaid(e) {
    return ['name', 'outcome', 'result'].map(function (k) { return heldSaid(e, k); }).filter(Boolean).map(function (x) { return '; ' + x; }).join('');
  }
  // e.observed_again (trial 30c F2): later records of the same call that differ, said as export_blocks.again_said says them.
  function againSaid(e) {
    const out = (e.observed_again || []).filter(function (a) { return a && typeof a === 'object'; }).map(function (a) {
      const differs = (a.differs || []).map(String), later = {};
      ['outcome', 'failure', 'error'].forEach(function (k) {
        const src = differs.indexOf(k) >= 0 ? a : e;
        if (Object.prototype.hasOwnProperty.call(src, k)) later[k] = src[k];
      });
      return 'observed again' + (a.time ? ' at ' + a.time : '') + ': ' + outcomeSaid(later) + ' (its ' + differs.join(', ') + " differ from the first's)";
    });
    return out.length ? out.join('; ') + '; the first by time is the one counted' : '';
  }
  // The "Against the transcript" cell of the executions table: the name, outcome and result checks that differ, and a
  // later record of the call that differs (trial 30c F2, F3); '—' when nothing differs.
  function heldCell(e) {
    const bits = ['name', 'outcome', 'result'].filter(function (k) { return heldSaid(e, k); }).map(function (k) { return k + ' differs'; });
    if (e.observed_again) bits.push('observed twice, differing');
    if (!bits.length) return '—';
    return h('span', { class: 'tag exec failed held differ', title: (transcriptSaid(e) + (e.observed_again ? '; ' + againSaid(e) : '')).replace(/^; /, '') }, bits.join(' · '));
  }
  // How an execution record's call failed, said as export_blocks.outcome_said says it (trial 25a, F1): the failure class
  // the hook derived by its declared rule (rate_words.FAILURE_WORDS, written in by the server), and the error's size as JSON.
  const FAILURE_WORDS = {/* rate_words.FAILURE_WORDS */};
  function outcomeSaid(e) {
    const out = String(e.outcome || 'outcome not said');
    const err = e.error && typeof e.error === 'object' ? e.error : {};
    const bits = typeof e.failure === 'string' && e.failure && e.failure !== out
      ? [Object.prototype.hasOwnProperty.call(FAILURE_WORDS, e.failure) ? FAILURE_WORDS[e.failure] : e.failure] : [];
    if (Number.isInteger(err.bytes)) bits.push('error ' + num(err.bytes) + ' bytes as JSON, not kept');
    return bits.length ? out + ' (' + bits.join('; ') + ')' : out;
  }
  // The Arguments cell of the executions table: what the hook saw held against the transcript's input (trial 23a, F8).
  function argumentsCell(e) {
    const c = e.arguments_check && typeof e.arguments_check === 'object' ? e.arguments_check : {};
    const said = argumentsSaid(e).replace(/^; /, '');
    if (c.result === 'agree') return h('span', { class: 'args agree', title: said }, 'as the transcript');
    if (c.result === 'differ') return h('span', { class: 'tag exec failed args differ', title: said }, 'differ');
    if (c.result === 'cannot_compare') return h('span', { class: 'faint args', title: said }, 'not compared: ' + (c.why || 'no reason given'));
    return '—';
  }
  // e.arguments_check (trial 23a, F8), said as export_blocks.arguments_said says it.
  function argumentsSaid(e) {
    const c = e.arguments_check && typeof e.arguments_check === 'object' ? e.arguments_check : {};
    if (c.result === 'agree') return "; arguments as the transcript's input";
    if (c.result === 'differ') {
      const a = e.arguments || {}, t = c.transcript || {};
      const sizes = Number.isInteger(a.bytes) && Number.isInteger(t.bytes) ? ' (' + num(a.bytes) + " bytes, the transcript's " + num(t.bytes) + ')' : '';
      return "; arguments differ from the transcript's input" + sizes;
    }
    if (c.result === 'cannot_compare') return "; arguments not compared with the transcript's input: " + (c.why || 'no reason given');
    return '';
  }
  function executionTag(e) {
    const sv = e.server && typeof e.server === 'object' ? e.server : {};
    const bits = [sv.name ? (e.protocol ? String(e.protocol).toUpperCase() + ' ' : '') + sv.name : 'executed'];
    if (Number.isInteger(e.duration_ms)) bits.push(num(e.duration_ms) + ' ms');
    if (e.outcome) bits.push(e.outcome + (e.failure && e.failure !== e.outcome ? ' (' + e.failure + ')' : ''));
    return h('span', { class: 'tag exec' + (e.outcome && e.outcome !== 'returned' ? ' failed' : ''), title: executionLine(e) }, bits.join(' · '));
  }
  function stepChangesEl(n) {
    const idx = changesOf(n.id);
    if (!idx.length) return null;
    return h('div', { class: 'stepchanges' }, h('h3', null, 'Changes'), idx.map(function (i) { return changeEl(D.workspace_changes[i], i, true); }));
  }
  function changeLinks(n) {
    const idx = changesOf(n.id);
    return n.changes.map(function (id, j) {
      const i = idx.filter(function (x) { return D.workspace_changes[x].id === id; })[0];
      return [j ? ', ' : '', i === undefined ? id : h('a', { href: '#tab=changes&change=' + i, onclick: function (ev) { ev.preventDefault(); showChange(i); } }, id)];
    });
  }
  function drawGlossary() {
    const holder = h('div', null, h('p', { class: 'faint' }, 'Loading the glossary…'));
    panel.append(holder);
    api('/api/glossary').then(function (res) {
      clear(holder);
      if (!res.ok) { holder.append(errorBox('No glossary.', res)); return; }
      const g = res.data;
      holder.append(h('p', { class: 'muted small' }, 'Dialect ' + g.dialect + ' (installed: ' + g.dialects.join(', ') + '). What the runtime calls each model name, and where it appears.'));
      holder.append(table(['Term', 'Runtime word', 'Where', 'Note'], Object.keys(g.terms).map(function (t) {
        const x = g.terms[t];
        return [h('b', null, t), x.native || h('span', { class: 'faint' }, '(derived)'), x.where, x.note];
      })));
      holder.append(h('h2', null, 'Session Data fields'));
      holder.append(table(['Field', 'Meaning'], Object.keys(g.fields).map(function (f) { return [h('code', null, f), g.fields[f]]; })));
    });
  }

  let currentTab = 'talks';
  window.addEventListener('hashchange', function () {
    if (!D) {  // the list page: an address whose # names the other tab shows it (trial 21: only a new load did)
      if (document.getElementById('listpanel')) {
        const want = listFilters().view === 'usage' ? 'usage' : 'list';
        const on = document.querySelector('[data-view][aria-selected="true"]');
        if (!on || on.getAttribute('data-view') !== want) showListView(want);
      }
      return;
    }
    const hp = hashParams();
    if ((hp.tab || 'talks') !== currentTab) showTab(hp.tab || 'talks');
    if (hp.step || hp.talk) revealHash(hp);
  });
  route();
})();
