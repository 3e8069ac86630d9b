// The content script of the reference thin client. Evaluated before every call, it defines
// window.__sa once per document: element marking, the interact API's `dom` string, the run
// API's PageSnapshot, and the checks an action needs before real input events are sent.
(() => {
  if (window.__sa) return;
  const ATTR = 'data-agent-id';
  const PREFIX = 'agent-';
  // Roles that make any element something a user acts on.
  const ACTION_ROLES = new Set(['button', 'link', 'checkbox', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'radio', 'switch', 'slider', 'spinbutton']);
  // Elements whose content is never page text.
  const DROP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'object',
    'embed', 'link', 'meta', 'head', 'audio', 'video', 'map', 'picture', 'source', 'track', 'br', 'hr', 'wbr']);
  // Containers kept in the dom string: they carry the structure (forms, tables, lists, dialogs...).
  const KEEP = new Set(['main', 'nav', 'header', 'footer', 'aside', 'section', 'article', 'div', 'form',
    'fieldset', 'legend', 'table', 'caption', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'ul', 'ol', 'li',
    'dl', 'dt', 'dd', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'label', 'dialog', 'details', 'figure',
    'figcaption', 'blockquote', 'pre', 'address', 'output', 'option', 'optgroup']);
  // Attributes the dom string keeps, in this order.
  const ATTRS = ['type', 'name', 'role', 'aria-label', 'placeholder', 'href', 'autocomplete', 'inputmode', 'maxlength', 'aria-modal',
    'aria-expanded', 'aria-selected', 'aria-checked', 'aria-pressed', 'aria-current', 'aria-invalid', 'title', 'alt'];
  // Roles whose element is kept in the dom string even when its tag is not: what they say is news.
  const KEEP_ROLES = new Set(['dialog', 'alertdialog', 'alert', 'status']);
  // The containers whose text tells look-alike elements apart (which product an "Add to cart" is for).
  const CARD = 'li, tr, article, [role=listitem], [role=row], [role=article], section, fieldset';
  const MAX_OPTIONS = 300, MAX_OPTION = 200, MAX_CONTEXT = 300, MAX_LABEL = 500;
  const MAX_TEXT = 200;      // ElementInfo.text
  const MAX_VALUE = 100;     // ElementInfo.value
  const MAX_VISIBLE = 6000;  // PageSnapshot.visibleText
  const MAX_ELEMENTS = 100;  // PageSnapshot.elements

  const tag = (el) => el.tagName.toLowerCase();
  const squash = (s) => (s || '').replace(/\s+/g, ' ');
  const cut = (s, n) => (s.length > n ? s.slice(0, n) : s);
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const escAttr = (s) => esc(s).replace(/"/g, '&quot;');

  let next = 1;
  const byId = new Map();

  function visible(el) {
    if (el.checkVisibility && !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    return true;
  }
  function hasBox(el) {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }
  function labelControl(el) {
    if (tag(el) !== 'label') return null;
    const c = el.control;
    return c && c !== el ? c : null;
  }
  function actionable(el) {
    const t = tag(el);
    if (t === 'input') return (el.type || '').toLowerCase() !== 'hidden';
    if (['a', 'button', 'select', 'textarea', 'summary'].includes(t)) return t !== 'a' || el.hasAttribute('href') || el.hasAttribute('onclick');
    if (t === 'label') return !!labelControl(el) && !el.contains(labelControl(el));
    const role = (el.getAttribute('role') || '').trim().toLowerCase();
    if (ACTION_ROLES.has(role)) return true;
    if (el.hasAttribute('onclick')) return true;
    if (el.hasAttribute('tabindex') && el.getAttribute('tabindex') !== '-1') return true;
    if (el.isContentEditable && el.getAttribute('contenteditable') !== null) return true;
    return false;
  }
  // idOf gives an element its agent id, keeping the one it has: ids stay stable across steps on
  // the same page, so "new since the previous step" means something.
  function idOf(el, seen) {
    let v = el.getAttribute(ATTR);
    if (!v || !v.startsWith(PREFIX) || seen.has(v)) {
      // A copied node carries its original's id; give it its own.
      v = PREFIX + next++;
      el.setAttribute(ATTR, v);
    } else {
      const n = parseInt(v.slice(PREFIX.length), 10);
      if (n >= next) next = n + 1;
    }
    seen.add(v);
    byId.set(v, el);
    return v;
  }
  // wasPassword holds the inputs seen as password fields: a show-password toggle makes them text
  // fields, and the server must still treat them as secret fields.
  const wasPassword = new WeakSet();
  // masked reports a field that shows its value masked: a password field now or before, or one
  // a style masks (-webkit-text-security).
  function masked(el) {
    if (tag(el) !== 'input' && tag(el) !== 'textarea') return false;
    if ((el.type || '').toLowerCase() === 'password') wasPassword.add(el);
    const security = getComputedStyle(el).webkitTextSecurity;
    return wasPassword.has(el) || (!!security && security !== 'none');
  }

  function currentValue(el) {
    const t = tag(el);
    if (t === 'select') {
      const o = el.selectedOptions && el.selectedOptions[0];
      return o ? squash(o.textContent).trim() : '';
    }
    if (t === 'textarea' || t === 'input') {
      const type = (el.type || '').toLowerCase();
      if (type === 'checkbox' || type === 'radio') return '';
      return el.value || '';
    }
    return '';
  }
  function inViewport(r) {
    return r.bottom > 0 && r.right > 0 && r.top < window.innerHeight && r.left < window.innerWidth;
  }

  // serialize writes el's subtree into out; it returns whether it wrote anything.
  function serialize(el, out, seen, snap) {
    const t = tag(el);
    if (DROP.has(t) || !visible(el)) return false;
    const isAction = actionable(el) && hasBox(el);
    const start = out.length;
    let id = '';
    if (isAction) {
      id = idOf(el, seen);
      if (snap.elements.length < MAX_ELEMENTS && inViewport(el.getBoundingClientRect())) snap.elements.push(el);
    }
    const keep = isAction || KEEP.has(t) || KEEP_ROLES.has(el.getAttribute('role'));
    if (keep) {
      let open = '<' + t;
      if (id) open += ' id="' + id.slice(PREFIX.length) + '"';
      for (const a of ATTRS) {
        if (!el.hasAttribute(a)) continue;
        let v = a === 'href' ? el.href || el.getAttribute('href') : el.getAttribute(a);
        if (a === 'href' && /^javascript:/i.test(v)) continue;
        if (a === 'type' && t !== 'input' && t !== 'button') continue;
        open += ' ' + a + '="' + escAttr(squash(v).trim()) + '"';
      }
      if (t === 'input' || t === 'textarea' || t === 'select') {
        const v = currentValue(el);
        if (v && t === 'input') open += ' value="' + escAttr(v) + '"';
        // Said in the style the server reads as a masked field.
        if (masked(el)) open += ' style="-webkit-text-security:disc"';
        if (el.checked) open += ' checked';
        if (el.disabled) open += ' disabled';
      } else if (t === 'button' && el.disabled) {
        open += ' disabled';
      } else if (t === 'option' && el.selected) {
        open += ' selected';
      }
      out.push(open + '>');
      if (t === 'input') return true;
      if (t === 'textarea') {
        out.push(esc(el.value) + '</textarea>');
        return true;
      }
      if (t === 'select') {
        // Options of a closed select are not rendered, yet they are what the user can choose.
        for (const o of el.options) out.push('<option' + (o.selected ? ' selected' : '') + '>' + esc(squash(o.textContent).trim()) + '</option>');
        out.push('</select>');
        return true;
      }
    }
    let wrote = !!id;
    // A block or flex item that the dom string does not keep is still apart from its
    // neighbours: "06:19" and "08:44" in two boxes must not read "06:1908:44".
    const apart = !keep && el !== document.body && !(getComputedStyle(el).display || '').startsWith('inline');
    if (apart) out.push(' ');
    for (const c of el.childNodes) {
      if (c.nodeType === Node.TEXT_NODE) {
        const s = squash(c.textContent);
        if (s.trim()) {
          out.push(esc(s));
          wrote = true;
          snap.noteText(c);
        } else if (s && out.length > start) {
          out.push(' ');
        }
      } else if (c.nodeType === Node.ELEMENT_NODE) {
        if (serialize(c, out, seen, snap)) wrote = true;
      }
    }
    if (apart) out.push(' ');
    if (!keep) return wrote;
    if (!wrote) {
      out.length = start; // an empty container says nothing
      return false;
    }
    out.push('</' + t + '>');
    return true;
  }

  function elementInfo(el) {
    const r = el.getBoundingClientRect();
    const info = { id: el.getAttribute(ATTR), tag: tag(el) };
    const put = (k, v, n) => {
      v = squash(v).trim();
      if (v) info[k] = cut(v, n);
    };
    put('role', el.getAttribute('role'), 100);
    put('text', el.innerText || el.textContent, MAX_TEXT);
    put('ariaLabel', el.getAttribute('aria-label'), 500);
    put('placeholder', el.getAttribute('placeholder'), 500);
    if (tag(el) === 'input' || tag(el) === 'button') put('type', el.getAttribute('type'), 100);
    put('value', currentValue(el), MAX_VALUE);
    if (el.href) put('href', el.href, 2048);
    put('name', el.getAttribute('name'), 500);
    put('autocomplete', el.getAttribute('autocomplete'), 100);
    put('inputMode', el.getAttribute('inputmode'), 100);
    if (el.maxLength > 0) info.maxLength = el.maxLength;
    if (masked(el)) info.masked = true;
    if (el.disabled) info.disabled = true;
    info.bbox = { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
    const label = el.labels && el.labels[0];
    if (label) put('label', label.innerText || label.textContent, MAX_LABEL);
    const type = (el.type || '').toLowerCase();
    const state = (a) => (el.hasAttribute(a) ? el.getAttribute(a) === 'true' : undefined);
    if (tag(el) === 'input' && (type === 'checkbox' || type === 'radio')) info.checked = el.checked;
    else if (state('aria-checked') !== undefined) info.checked = state('aria-checked');
    if (tag(el) === 'option') info.selected = el.selected;
    else if (state('aria-selected') !== undefined) info.selected = state('aria-selected');
    if (state('aria-pressed') !== undefined) info.pressed = state('aria-pressed');
    if (state('aria-expanded') !== undefined) info.expanded = state('aria-expanded');
    if (tag(el) === 'select') info.options = [...el.options].slice(0, MAX_OPTIONS).map((o) => cut(squash(o.textContent).trim(), MAX_OPTION));
    return info;
  }

  // addContext gives the elements that read alike (three "Add to cart") the text of the card or
  // row each belongs to.
  function addContext(els, infos) {
    const key = (i) => [i.tag, i.type, i.text, i.ariaLabel, i.label, i.name].join('\u0000');
    const count = new Map();
    for (const i of infos) count.set(key(i), (count.get(key(i)) || 0) + 1);
    infos.forEach((i, k) => {
      if (count.get(key(i)) < 2) return;
      const card = els[k].closest(CARD);
      if (card) {
        const v = squash(card.innerText || card.textContent).trim();
        if (v) i.context = cut(v, MAX_CONTEXT);
      }
    });
    return infos;
  }

  // capture marks and reads the page. first is the lowest id to give a new element: the tab
  // numbers elements across its pages, so an id in the history never names two elements.
  function capture(first) {
    if (first > next) next = first;
    const seen = new Set();
    byId.clear();
    // visibleText joins the viewport's text as it reads: a new line where a new block starts.
    let visibleText = '', lastBlock = null;
    const blocks = new Map();
    const blockOf = (el) => {
      let b = el;
      while (b && b !== document.body && (getComputedStyle(b).display || '').startsWith('inline')) b = b.parentElement;
      // The cells of a table row read as one line.
      const row = b && b.closest && getComputedStyle(b).display === 'table-cell' ? b.closest('tr') : null;
      return row || b;
    };
    const snap = {
      elements: [],
      noteText(node) {
        if (visibleText.length > MAX_VISIBLE) return;
        const range = document.createRange();
        range.selectNodeContents(node);
        const r = range.getBoundingClientRect();
        if (!(r.width > 0 && inViewport(r))) return;
        let b = blocks.get(node.parentElement);
        if (b === undefined) blocks.set(node.parentElement, (b = blockOf(node.parentElement)));
        if (visibleText) visibleText += b === lastBlock ? ' ' : '\n';
        visibleText += squash(node.textContent).trim();
        lastBlock = b;
      },
    };
    const out = [];
    if (document.body) serialize(document.body, out, seen, snap);
    const title = squash(document.title).trim();
    const dom = (title ? '<title>' + esc(title) + '</title>' : '') + '<body>' + out.join('').replace(/ {2,}/g, ' ') + '</body>';
    if (visibleText.length > MAX_VISIBLE) visibleText = visibleText.slice(0, MAX_VISIBLE - 1) + '…';
    return {
      next,
      url: location.href,
      title,
      dom,
      snapshot: {
        url: location.href, title, visibleText,
        elements: addContext(snap.elements, snap.elements.map(elementInfo)),
        timestamp: Date.now(),
      },
    };
  }

  function find(id) {
    let el = byId.get(id);
    if (!el || !el.isConnected) el = document.querySelector('[' + ATTR + '="' + CSS.escape(id) + '"]');
    return el;
  }
  function describe(el) {
    let s = '<' + tag(el);
    if (el.id) s += ' id="' + el.id + '"';
    if (el.className && typeof el.className === 'string' && el.className.trim()) s += ' class="' + squash(el.className).trim() + '"';
    s += '>';
    const text = cut(squash(el.innerText || el.textContent).trim(), 60);
    return text ? s + ' "' + text + '"' : s;
  }
  function missing(id) {
    return { ok: false, code: 'ELEMENT_NOT_FOUND', message: 'Element ' + id + ' is not on the page (it may have been removed or the page changed)' };
  }

  // target scrolls the element into view and says where a real click would land, or why it can't.
  function target(id) {
    const el = find(id);
    if (!el) return missing(id);
    if (!visible(el) || !hasBox(el)) return { ok: false, code: 'ELEMENT_NOT_VISIBLE', message: 'Element ' + id + ' is not visible' };
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') return { ok: false, code: 'ELEMENT_DISABLED', message: 'Element ' + id + ' is disabled' };
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const hit = document.elementFromPoint(x, y);
    const ctl = labelControl(el);
    if (hit && hit !== el && !el.contains(hit) && !(ctl && (hit === ctl || ctl.contains(hit)))) {
      return { ok: false, code: 'CLICK_INTERCEPTED', message: 'Click on element ' + id + ' was intercepted by another element that covers it: ' + describe(hit) };
    }
    return { ok: true, x, y };
  }

  function setValue(id, text) {
    const el = find(id);
    if (!el) return missing(id);
    if (!visible(el)) return { ok: false, code: 'ELEMENT_NOT_VISIBLE', message: 'Element ' + id + ' is not visible' };
    if (el.disabled || el.readOnly) return { ok: false, code: 'ELEMENT_DISABLED', message: 'Element ' + id + ' is disabled or read-only' };
    const t = tag(el);
    const fire = () => {
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    };
    if (t === 'select') {
      const want = squash(text).trim().toLowerCase();
      const opt = [...el.options].find((o) => squash(o.textContent).trim().toLowerCase() === want || o.value.toLowerCase() === want);
      if (!opt) return { ok: false, code: 'OPTION_NOT_FOUND', message: 'Select ' + id + ' has no option "' + text + '"; its options are: ' + [...el.options].map((o) => squash(o.textContent).trim()).join(', ') };
      el.value = opt.value;
      fire();
      return { ok: true };
    }
    const type = (el.type || '').toLowerCase();
    if (t === 'input' && (type === 'checkbox' || type === 'radio')) {
      const on = /^(true|on|yes|checked|1)$/i.test(text.trim());
      if (el.checked !== on) el.click();
      return { ok: true };
    }
    if (el.isContentEditable) {
      el.focus();
      el.textContent = text;
      el.dispatchEvent(new Event('input', { bubbles: true }));
      return { ok: true };
    }
    if (t !== 'input' && t !== 'textarea') return { ok: false, code: 'NOT_EDITABLE', message: 'Element ' + id + ' (' + t + ') does not take a value' };
    el.focus();
    // The native setter, so that frameworks tracking the value see the change.
    const proto = t === 'textarea' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, text);
    fire();
    return { ok: true };
  }

  function focus(id) {
    const el = find(id);
    if (!el) return missing(id);
    el.focus();
    return { ok: document.activeElement === el || el.contains(document.activeElement) };
  }

  // searchBox finds the page's search field, the way a user would spot it.
  function searchBox() {
    const cands = [...document.querySelectorAll('input, [role=searchbox], [role=combobox]')].filter((el) => visible(el) && hasBox(el) && !el.disabled);
    const words = /search|query|find|^q$/i;
    const score = (el) => {
      if ((el.type || '').toLowerCase() === 'search' || el.getAttribute('role') === 'searchbox') return 3;
      if (el.closest('[role=search], form[role=search]')) return 2;
      for (const a of ['name', 'id', 'placeholder', 'aria-label', 'title']) if (words.test(el.getAttribute(a) || '')) return 1;
      return 0;
    };
    let best = null, bestScore = 0;
    for (const el of cands) {
      const s = score(el);
      if (s > bestScore) best = el, bestScore = s;
    }
    if (!best) return { ok: false, code: 'NO_SEARCH_BOX', message: 'The page has no search box' };
    return { ok: true, id: idOf(best, new Set()) };
  }

  const atEnd = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
  function scroll(dy) {
    const before = window.scrollY;
    window.scrollBy({ top: dy, behavior: 'instant' });
    return { ok: true, moved: Math.round(window.scrollY - before), atEnd: atEnd(), atTop: window.scrollY <= 0 };
  }
  // scrollEdge says, once the page settled, whether it is still at its end: an infinite list
  // loads more when its bottom is reached.
  function scrollEdge() {
    return { ok: true, atEnd: atEnd(), atTop: window.scrollY <= 0 };
  }

  // structure is what a batch of actions must leave unchanged to go on: the address and the
  // shown controls of the whole document (not only the viewport, which scrolls as fields fill).
  function structure() {
    const shown = Array.from(document.querySelectorAll('a,button,input,select,textarea,[role],dialog'))
      .filter((el) => el.getClientRects().length > 0);
    return location.href + '#' + shown.length;
  }

  window.__sa = { capture, target, setValue, focus, searchBox, scroll, scrollEdge, structure, exists: (id) => !!find(id) };
})();
