// quizhost sandbox: the page's behaviour. The server renders everything;
// this script sends interactions, opens menus and dialogs, and swaps in the
// messages that changed when the server says something happened.
"use strict";
(() => {
  const body = document.body;
  const channel = body.dataset.channel;
  const $ = (sel, root = document) => root.querySelector(sel);
  const json = (doc, id, empty) => JSON.parse($("#" + id, doc).textContent || empty) || JSON.parse(empty);
  // as is the member the page acts as; commands and hidden are the
  // composer's commands for them, and those Discord hides from them. A
  // switch to another member changes all three (actAs).
  let as = body.dataset.as, commands = json(document, "commands", "[]"), hidden = json(document, "hidden", "[]");
  const directory = json(document, "directory", "{}");
  const scroller = $("#scroller");
  const dismissed = new Set();

  async function post(path, payload) {
    const res = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(Object.assign({channel, as}, payload))});
    if (!res.ok) return {error: (await res.text()).trim() || res.statusText};
    return res.json();
  }

  // ---- live updates -------------------------------------------------------
  let busy = false, again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const url = location.pathname + location.search;
      const res = await fetch(url, {cache: "no-store"});
      // A refusal (a stopped sandbox, an unknown member) changes nothing.
      if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${(await res.text()).trim()}`);
      const doc = new DOMParser().parseFromString(await res.text(), "text/html");
      // Switched to another member while this view was on its way: it is
      // theirs no longer, and the next round fetches the new one.
      if (url !== location.pathname + location.search) { again = true; return; }
      const switched = doc.body.dataset.as !== as;
      if (switched) actAs(doc);
      const nearBottom = switched || scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
      morph($("#messages"), $("#messages", doc));
      swap("#violations", doc);
      swap("#clock", doc);
      offset = +$("#clock", doc).dataset.offset || 0;
      setText($("#violation-count"), $("#violation-count", doc).textContent);
      markViolations();
      updateTimes();
      if (nearBottom) scroller.scrollTop = scroller.scrollHeight;
    } catch (e) {
      console.error(e);
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }
  // swap replaces the element sel finds with the one in doc, when the
  // server's rendering of it changed: an unchanged part is left alone, so
  // the browser lays out and paints nothing for it.
  const served = new Map();
  function swap(sel, doc) {
    const html = $(sel, doc).innerHTML;
    if (served.get(sel) === html) return;
    served.set(sel, html);
    $(sel).innerHTML = html;
  }
  // setText sets el's text, when it differs.
  function setText(el, text) {
    if (el.textContent !== text) el.textContent = text;
  }
  // morph makes list's children those of next, keeping elements whose
  // data-key did not change (an open menu stays open). A message edited
  // while one of its menus is open (another member answered, say) keeps
  // that menu open, with the options picked so far, when the edit still
  // has it.
  function morph(list, next) {
    const old = new Map([...list.children].map(el => [el.dataset.id, el]));
    let prev = null;
    for (const el of [...next.children]) {
      let cur = old.get(el.dataset.id);
      old.delete(el.dataset.id);
      if (!cur || cur.dataset.key !== el.dataset.key) {
        const fresh = document.importNode(el, true);
        if (cur) {
          keepOpenMenus(cur, fresh);
          cur.replaceWith(fresh);
        }
        cur = fresh;
      }
      if (dismissed.has(cur.dataset.id)) cur.classList.add("dismissed");
      const want = prev ? prev.nextElementSibling : list.firstElementChild;
      if (want !== cur) list.insertBefore(cur, want);
      prev = cur;
    }
    for (const el of old.values()) el.remove();
  }
  // keepOpenMenus opens in fresh the menus open in cur (the same custom
  // ID, not disabled), with the same options picked.
  function keepOpenMenus(cur, fresh) {
    for (const sel of cur.querySelectorAll(".select.open")) {
      const again = [...fresh.querySelectorAll(".select[data-custom-id]")]
        .find(s => s.dataset.customId === sel.dataset.customId && !s.classList.contains("disabled"));
      if (!again) continue;
      const picked = new Set([...sel.querySelectorAll('.select-option[aria-selected="true"]')].map(o => o.dataset.value));
      for (const o of again.querySelectorAll(".select-option")) o.setAttribute("aria-selected", String(picked.has(o.dataset.value)));
      $(".select-menu", again).hidden = false;
      again.classList.add("open");
      showPicked(again);
    }
  }
  function markViolations() {
    $("#violations-panel").classList.toggle("bad", $("#violation-count").textContent.trim() !== "0");
  }
  const events = new EventSource("/events");
  events.addEventListener("change", refresh);

  // ---- acting as another member ------------------------------------------------
  // A member's link (the switcher, the Members panel) turns this page into
  // their view where it stands, as a refresh does, instead of loading the
  // page again: the browser's Back and Forward go between the views.
  document.addEventListener("click", e => {
    const a = e.target.closest("a.switch[href], a.member[href]");
    if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    if (a.href !== location.href) history.pushState(null, "", a.href);
    refresh();
  });
  window.addEventListener("popstate", refresh);
  // actAs makes doc's member (the server's page for them) the one this
  // page acts as: their commands, the switcher and the links that carry
  // ?as=, and a composer and dialog left as they would be on a new page.
  function actAs(doc) {
    as = body.dataset.as = doc.body.dataset.as;
    commands = json(doc, "commands", "[]");
    hidden = json(doc, "hidden", "[]");
    for (const sel of [".switcher", ".channel-list", "#members-panel"]) $(sel).innerHTML = $(sel, doc).innerHTML;
    if (modal.open) { modalState = null; modal.close(); }
    clearCommand();
    showError("");
  }

  // ---- timestamps (same rules as render.go's relative) ---------------------
  // offset is how far the sandbox's clock is ahead of this computer's, in
  // milliseconds (Advance time moves it).
  let offset = +$("#clock").dataset.offset || 0;
  function relative(t) {
    let s = Math.round(t - (Date.now() + offset) / 1000);
    const future = s > 0;
    s = Math.abs(s);
    if (s < 45) return future ? "in a few seconds" : "a few seconds ago";
    let n, unit;
    if (s < 60) [n, unit] = [s, "second"];
    else if (s < 3600) [n, unit] = [Math.floor((s + 30) / 60), "minute"];
    else if (s < 86400) [n, unit] = [Math.floor((s + 1800) / 3600), "hour"];
    else if (s < 30 * 86400) [n, unit] = [Math.floor((s + 43200) / 86400), "day"];
    else if (s < 365 * 86400) [n, unit] = [Math.floor(s / (30 * 86400)), "month"];
    else [n, unit] = [Math.floor(s / (365 * 86400)), "year"];
    if (n !== 1) unit += "s";
    return future ? `in ${n} ${unit}` : `${n} ${unit} ago`;
  }
  const clockFormat = new Intl.DateTimeFormat("en-GB", {weekday: "long", day: "numeric", month: "long",
    year: "numeric", hour: "2-digit", minute: "2-digit"});
  function updateTimes() {
    for (const el of document.querySelectorAll('time.ts[data-s="R"]')) setText(el, relative(+el.dataset.t));
    setText($("#clock-now"), clockFormat.format(new Date(Date.now() + offset)));
  }
  setInterval(updateTimes, 1000);

  // ---- Advance time -----------------------------------------------------------
  $("#clock-panel").addEventListener("click", async e => {
    const btn = e.target.closest("button[data-advance]");
    if (!btn || btn.disabled) return;
    const err = $("#advance-error");
    err.hidden = true;
    btn.disabled = true;
    try {
      const out = await post("/api/advance", {by: btn.dataset.advance});
      if (out.offset_ms != null) offset = out.offset_ms;
      if (out.error) { err.textContent = out.error; err.hidden = false; }
      updateTimes();
    } finally {
      btn.disabled = false;
      refresh();
    }
  });

  // ---- components -----------------------------------------------------------
  async function component(li, customID, values) {
    const failed = $(".failed", li);
    if (failed) failed.hidden = true;
    const out = await post("/api/component", {message: li.dataset.id, custom_id: customID, values});
    if (out.modal) openModal(out.modal, li.dataset.id);
    if (out.error && failed) { failed.textContent = "This interaction failed: " + out.error; failed.hidden = false; }
  }
  function closeSelect(sel, send) {
    const menu = $(".select-menu", sel);
    if (menu.hidden) return;
    menu.hidden = true;
    sel.classList.remove("open");
    const picked = [...sel.querySelectorAll('.select-option[aria-selected="true"]')].map(o => o.dataset.value);
    for (const o of sel.querySelectorAll(".select-option")) o.setAttribute("aria-selected", "false");
    showPicked(sel);
    const min = +sel.dataset.min;
    if (send && picked.length > 0 && picked.length >= min) component(sel.closest(".message"), sel.dataset.customId, picked);
  }
  function showPicked(sel) {
    const head = $(".select-head", sel), ph = $(".select-placeholder", sel);
    const picked = [...sel.querySelectorAll('.select-option[aria-selected="true"] .option-label')].map(o => o.textContent);
    if (!ph.dataset.placeholder) ph.dataset.placeholder = ph.textContent;
    ph.textContent = picked.length ? picked.join(", ") : ph.dataset.placeholder;
    head.classList.toggle("has-value", picked.length > 0);
  }
  document.addEventListener("click", e => {
    for (const open of document.querySelectorAll(".select.open")) {
      if (!open.contains(e.target)) closeSelect(open, true);
    }
    if (!$("#composer").contains(e.target)) hidePopup();
  });
  $("#messages").addEventListener("click", e => {
    const li = e.target.closest(".message");
    if (!li) return;
    const btn = e.target.closest("button.button[data-custom-id]");
    if (btn && !btn.disabled) { component(li, btn.dataset.customId, []); return; }
    if (e.target.closest(".dismiss")) { dismissed.add(li.dataset.id); li.classList.add("dismissed"); return; }
    const sel = e.target.closest(".select");
    if (!sel || sel.classList.contains("disabled")) return;
    const menu = $(".select-menu", sel);
    if (e.target.closest(".select-head")) {
      if (menu.hidden) {
        menu.hidden = false;
        sel.classList.add("open");
        // The newest question's menu opens below the last message: bring
        // its options into view, as Discord does.
        menu.scrollIntoView({block: "nearest"});
      } else closeSelect(sel, true);
      return;
    }
    const opt = e.target.closest(".select-option");
    if (!opt) return;
    const max = +sel.dataset.max;
    if (max <= 1) {
      for (const o of sel.querySelectorAll(".select-option")) o.setAttribute("aria-selected", String(o === opt));
      closeSelect(sel, true);
      return;
    }
    const on = opt.getAttribute("aria-selected") !== "true";
    const count = sel.querySelectorAll('.select-option[aria-selected="true"]').length;
    if (on && count >= max) return;
    opt.setAttribute("aria-selected", String(on));
    showPicked(sel);
  });

  // ---- modals ---------------------------------------------------------------
  const modal = $("#modal");
  let modalState = null;
  function textInputs(components, label) {
    const out = [];
    for (const c of components || []) {
      if (c.type === 4) out.push(Object.assign({}, c, {label: c.label || label}));
      else if (c.type === 18 && c.component) out.push(...textInputs([c.component], c.label));
      else out.push(...textInputs(c.components, label));
    }
    return out;
  }
  function openModal(data, messageID) {
    modalState = {custom_id: data.custom_id, message: messageID || ""};
    $("#modal-title").textContent = data.title || "";
    const box = $("#modal-fields");
    box.textContent = "";
    for (const ti of textInputs(data.components)) {
      const wrap = document.createElement("div");
      wrap.className = "modal-field";
      const label = document.createElement("label");
      label.textContent = ti.label || ti.custom_id;
      if (ti.required !== false) { const r = document.createElement("span"); r.className = "req"; r.textContent = "*"; label.append(r); }
      const input = document.createElement(ti.style === 2 ? "textarea" : "input");
      input.name = ti.custom_id;
      input.id = "field-" + ti.custom_id;
      label.htmlFor = input.id;
      if (ti.placeholder) input.placeholder = ti.placeholder;
      if (ti.value) input.value = ti.value;
      if (ti.max_length) input.maxLength = ti.max_length;
      if (ti.min_length) input.minLength = ti.min_length;
      input.required = ti.required !== false;
      wrap.append(label, input);
      box.append(wrap);
    }
    modal.showModal();
    const first = $("input, textarea", box);
    if (first) first.focus();
  }
  $("#modal-form").addEventListener("submit", async e => {
    e.preventDefault();
    if (!modalState) return;
    const fields = {};
    for (const el of $("#modal-fields").querySelectorAll("input, textarea")) fields[el.name] = el.value;
    const st = modalState;
    modalState = null;
    modal.close();
    const out = await post("/api/modal", {message: st.message, custom_id: st.custom_id, fields});
    if (out.error) showError(out.error);
  });
  for (const id of ["#modal-cancel", "#modal-close"]) $(id).addEventListener("click", () => { modalState = null; modal.close(); });

  // ---- composer ---------------------------------------------------------------
  const input = $("#composer-input"), popup = $("#popup"), chip = $("#cmd-chip"), optBox = $("#cmd-options");
  let current = null, popupItems = [], popupIndex = 0, popupPick = null;
  const T = {STRING: 3, INTEGER: 4, BOOLEAN: 5, USER: 6, CHANNEL: 7, NUMBER: 10, ATTACHMENT: 11};

  function showError(msg) { const el = $("#composer-error"); el.textContent = msg; el.hidden = !msg; }
  function hidePopup() { popup.hidden = true; popupItems = []; popupPick = null; }
  // showPopup lists items above the composer; query (what they answer)
  // is kept in data-query, so a test can wait for the list it typed for.
  function showPopup(title, items, pick, query) {
    popup.textContent = "";
    popup.dataset.query = query;
    if (!items.length) { hidePopup(); return; }
    const h = document.createElement("div");
    h.className = "popup-title";
    h.textContent = title;
    popup.append(h);
    items.forEach((it, i) => {
      const row = document.createElement("div");
      row.className = "popup-item" + (i === 0 ? " active" : "");
      row.dataset.index = i;
      const n = document.createElement("span"); n.className = "popup-name"; n.textContent = it.name;
      const d = document.createElement("span"); d.className = "popup-desc"; d.textContent = it.desc || "";
      row.append(n, d);
      row.addEventListener("mousedown", ev => { ev.preventDefault(); pick(it); });
      popup.append(row);
    });
    popupItems = items; popupIndex = 0; popupPick = pick; popup.hidden = false;
    popup.scrollTop = 0;
  }
  // movePopup moves the highlight, which stays in view. It stops at either
  // end rather than wrap: ArrowUp from the first command would otherwise
  // land on the last, /quizadmin reset, where Enter picks it.
  function movePopup(delta) {
    const rows = popup.querySelectorAll(".popup-item");
    if (!rows.length) return;
    rows[popupIndex].classList.remove("active");
    popupIndex = Math.max(0, Math.min(rows.length - 1, popupIndex + delta));
    rows[popupIndex].classList.add("active");
    rows[popupIndex].scrollIntoView({block: "nearest"});
  }

  input.addEventListener("input", () => {
    showError("");
    const v = input.value;
    if (current || !v.startsWith("/")) { hidePopup(); return; }
    const q = v.slice(1).trim().toLowerCase();
    const items = commands.filter(c => c.label.slice(1).startsWith(q) || c.label.includes(q))
      .map(c => ({name: c.label, desc: c.description, cmd: c}));
    showPopup("Commands matching /" + q, items, it => selectCommand(it.cmd), v);
  });
  document.addEventListener("keydown", e => {
    if (popup.hidden || !popupItems.length) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); movePopup(e.key === "ArrowDown" ? 1 : -1); }
    else if (e.key === "Enter" || e.key === "Tab") { e.preventDefault(); e.stopPropagation(); popupPick(popupItems[popupIndex]); }
    else if (e.key === "Escape") hidePopup();
  }, true);
  input.addEventListener("keydown", e => {
    if (e.key === "Backspace" && current && input.value === "") clearCommand();
    if (e.key === "Escape" && current) clearCommand();
  });

  function selectCommand(cmd) {
    hidePopup();
    current = cmd;
    chip.textContent = cmd.label;
    chip.hidden = false;
    input.value = "";
    input.hidden = true;
    optBox.textContent = "";
    const opts = [...(cmd.options || [])].sort((a, b) => (b.required ? 1 : 0) - (a.required ? 1 : 0));
    for (const o of opts) optBox.append(optionField(o));
    const first = $("input, select", optBox);
    (first || $("#send")).focus();
  }
  function clearCommand() {
    current = null;
    chip.hidden = true;
    optBox.textContent = "";
    input.hidden = false;
    input.value = "";
    input.focus();
    hidePopup();
  }
  function select(o, entries) {
    const s = document.createElement("select");
    if (!o.required) s.append(new Option("", ""));
    for (const [name, value] of entries) s.append(new Option(name, value));
    return s;
  }
  function optionField(o) {
    const wrap = document.createElement("span");
    wrap.className = "opt" + (o.required ? " required" : "");
    wrap.dataset.option = o.name;
    wrap.title = o.description || "";
    const label = document.createElement("label");
    label.textContent = o.name;
    let el;
    if (o.choices && o.choices.length) el = select(o, o.choices.map(c => [c.name, String(c.value)]));
    else if (o.type === T.BOOLEAN) el = select(o, [["True", "true"], ["False", "false"]]);
    else if (o.type === T.CHANNEL) el = select(o, directory.channels.map(c => ["#" + c.Name, c.ID]));
    else if (o.type === T.USER) el = select(o, directory.members.map(m => ["@" + m.Name, m.ID]));
    else if (o.type === T.ATTACHMENT) { el = document.createElement("input"); el.type = "file"; }
    else {
      el = document.createElement("input");
      el.type = (o.type === T.INTEGER || o.type === T.NUMBER) ? "number" : "text";
      if (o.min_value != null) el.min = o.min_value;
      if (o.max_value != null) el.max = o.max_value;
      el.placeholder = o.description || "";
      if (o.autocomplete) {
        el.addEventListener("input", () => suggest(o, el));
        el.addEventListener("focus", () => suggest(o, el));
      }
    }
    el.name = o.name;
    el.id = "opt-" + o.name;
    label.htmlFor = el.id;
    wrap.append(label, el);
    return wrap;
  }
  async function values() {
    const out = [];
    for (const el of optBox.querySelectorAll("input, select")) {
      if (el.type === "file") {
        const f = el.files[0];
        if (!f) { out.push({name: el.name, value: ""}); continue; }
        const b64 = await new Promise(res => {
          const r = new FileReader();
          r.onload = () => res(String(r.result).replace(/^data:[^,]*,/, ""));
          r.readAsDataURL(f);
        });
        out.push({name: el.name, value: f.name, file: b64});
      } else out.push({name: el.name, value: el.value});
    }
    return out;
  }
  let suggestSeq = 0;
  async function suggest(o, el) {
    const seq = ++suggestSeq;
    const typed = el.value;
    const out = await post("/api/autocomplete", {name: current.name, path: current.path, options: await values(), focused: o.name});
    if (seq !== suggestSeq || document.activeElement !== el || el.value !== typed) return;
    showPopup(o.name, (out.choices || []).map(c => ({name: c.name, desc: c.name === String(c.value) ? "" : String(c.value), value: String(c.value)})),
      it => { el.value = it.value; hidePopup(); }, typed);
  }
  $("#composer").addEventListener("submit", async e => {
    e.preventDefault();
    if (!current) {
      const typed = input.value.trim();
      const h = typed.startsWith("/") && hidden.find(c => c.name === typed.slice(1).split(/\s+/)[0]);
      if (h) showError(h.message);
      else if (typed) showError("This sandbox has only the bot's commands: type / and pick one.");
      return;
    }
    let missing = false;
    for (const w of optBox.querySelectorAll(".opt.required")) {
      const el = $("input, select", w);
      const empty = el.type === "file" ? !el.files.length : !el.value;
      w.classList.toggle("missing", empty);
      missing = missing || empty;
    }
    if (missing) { showError("Fill in the required options."); return; }
    const cmd = current, opts = await values();
    clearCommand();
    const out = await post("/api/command", {name: cmd.name, path: cmd.path || [], options: opts});
    if (out.modal) openModal(out.modal, "");
    if (out.error) showError(out.error);
  });

  markViolations();
  updateTimes();
  scroller.scrollTop = scroller.scrollHeight;
})();
