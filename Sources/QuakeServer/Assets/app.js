// The quake browser: a day's, a range's or the past hours' quakes as a list and a map (map.js),
// kept in the URL and kept live.
"use strict";

const $ = (id) => document.getElementById(id);
const REGION_KEYS = ["minlatitude", "maxlatitude", "minlongitude", "maxlongitude"];

// the view: one of day, starttime/endtime or last; filters; the map; the selection
const state = {};
let data = null;            // the last answer of /api/day
let requestSerial = 0;      // answers to superseded requests are dropped
let live = null;            // the EventSource of the shown window
let drawnOnce = false;

// ---------- URL state ----------

// Values are taken as written: the server checks them, and a bad one is shown with its reason
// rather than quietly replaced. Names the page does not know are ignored, and the foot says so.
const KNOWN = ["day", "starttime", "endtime", "last", "orderby", "search", "minmagnitude", ...REGION_KEYS,
  "inview", "map", "selected", "stats"];
let ignored = [];

function readURL() {
  const p = new URLSearchParams(location.search);
  ignored = [...p.keys()].filter((k) => !KNOWN.includes(k));
  state.day = p.get("day") || null;
  state.starttime = p.get("starttime") || null;
  state.endtime = p.get("endtime") || null;
  state.last = p.get("last") || null;
  state.orderby = p.get("orderby") || "time";
  state.search = p.get("search") || "";
  state.minmagnitude = p.get("minmagnitude") || "";
  state.region = null;
  for (const k of REGION_KEYS) {
    const v = p.get(k);
    if (v !== null && v !== "") (state.region ??= {})[k] = isFinite(+v) ? +v : v;
  }
  state.inview = p.get("inview") === "1";
  state.map = p.get("map") || null;
  state.selected = p.get("selected") || null;
  state.stats = p.get("stats") === "1";
}

// the parameters of what is listed (for /api/day, /api/download and the URL)
function viewParams(forServer) {
  const p = new URLSearchParams();
  if (state.day) p.set("day", state.day);
  if (state.starttime) p.set("starttime", state.starttime);
  if (state.endtime) p.set("endtime", state.endtime);
  if (state.last) p.set("last", state.last);
  p.set("orderby", state.orderby);
  if (state.search) p.set("search", state.search);
  if (state.minmagnitude !== "") p.set("minmagnitude", state.minmagnitude);
  const region = forServer && state.inview ? QuakeMap.viewRegion() : state.region;
  for (const k of REGION_KEYS) if (region && region[k] !== undefined) p.set(k, region[k]);
  return p;
}

function writeURL(push) {
  const p = viewParams(false);
  if (state.inview) p.set("inview", "1");
  if (state.map) p.set("map", state.map);
  if (state.selected) p.set("selected", state.selected);
  if (state.stats) p.set("stats", "1");
  const url = "?" + p.toString();
  if (url === location.search) return;
  if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
}

// ---------- data ----------

async function load(options = {}) {
  const serial = ++requestSerial;
  // only what the map shows: the map's view must be the URL's before it is asked for
  if (state.inview && state.map && !options.keepMap && !options.live) QuakeMap.show(state.map);
  const query = viewParams(true).toString();
  const early = window.quakesEarly;
  window.quakesEarly = null;
  let answer;
  try {
    const r = await (early && sameParams(early.query, query) ? early.answer
      : fetch("/api/day?" + query, { cache: "no-store" }));
    const text = await r.text();
    if (!drawnOnce) performance.mark("quakes-text");
    answer = JSON.parse(text);
    if (!r.ok) throw new Error(answer.error || r.statusText);
  } catch (e) {
    if (serial === requestSerial) renderError(e.message);
    return;
  }
  if (serial !== requestSerial) return;
  if (!drawnOnce) performance.mark("quakes-data");
  const previous = data;
  data = answer;
  if (!state.day && !state.starttime && !state.last && data.day) { state.day = data.day; writeURL(false); }
  if (state.selected && !data.events.some((e) => e[0] === state.selected) && !options.live) {
    state.selected = null;
    writeURL(false);
    closeDetail();
  }
  // the map first: it reads the pane's size, which lays the page out, and that is cheaper before
  // the list's rows are in
  const refit = !options.live && !state.inview && !options.keepMap;
  const [drawn, located] = QuakeMap.draw(data.events, refit ? (state.map || "fit") : null);
  if (!drawnOnce) performance.mark("quakes-map");
  render(options.live ? previous : null);
  if (!drawnOnce) performance.mark("quakes-list");
  if (refit) { state.map = QuakeMap.urlValue(); writeURL(false); }
  QuakeMap.setSelected(state.selected, !options.live);
  if (!options.live) keepSelectedClear();
  QuakeMap.setRegion(state.inview ? null : state.region);
  renderNotes(drawn, located);
  QuakeStats.refresh();
  if (!drawnOnce) {
    drawnOnce = true;
    coastlinesDone.then(() => requestAnimationFrame(() => setTimeout(() => performance.mark("quakes-drawn"))));
  }
  if (options.resubscribe !== false) subscribe();
}

function sameParams(a, b) {
  const sorted = (q) => [...new URLSearchParams(q)].map(([k, v]) => k + "=" + v).sort().join("&");
  return sorted(a) === sorted(b);
}

// ---------- rendering ----------

function fmtTime(ms) {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

function escapeHTML(s) {
  const names = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" };
  return String(s).replace(/[&<>"']/g, (c) => names[c]);
}

function render(previous) {
  $("day").value = state.day || (data.day ?? "");
  $("search").value = state.search;
  $("minmag").value = state.minmagnitude;
  $("inview").checked = state.inview;
  $("clear-region").hidden = !state.region;
  for (const b of document.querySelectorAll("button[data-last]")) {
    b.setAttribute("aria-pressed", String(b.dataset.last === state.last));
  }
  for (const th of document.querySelectorAll("th[data-sort]")) {
    const key = th.dataset.sort;
    const active = state.orderby.startsWith(key);
    th.classList.toggle("sorted", active);
    th.classList.toggle("asc", active && state.orderby.endsWith("-asc"));
    th.classList.toggle("desc", active && !state.orderby.endsWith("-asc"));
  }
  $("window").textContent = data.day ? "" : data.label;
  renderList(previous);
  renderEmpty();
  renderFooter();
  renderDownloads();
}

// Keeps the first row in sight where it was, so that rows a live update adds above it do not move
// the list; a live update marks its new rows for a few seconds. A long list is written a screenful
// first and the rest in the following frames (a table of 10,000 rows takes the browser about a
// second to lay out at once); a live update, or a selection further down, writes it whole.
const FIRST_ROWS = 50, MORE_ROWS = 2000;
let listSerial = 0;

function renderList(previous) {
  const pane = $("list-pane");
  let anchor = null;
  if (previous) {
    const top = pane.getBoundingClientRect().top + $("list").tHead.offsetHeight;
    for (const tr of $("rows").children) {
      const r = tr.getBoundingClientRect();
      if (r.bottom > top) { anchor = { id: tr.dataset.eventId, offset: r.top - top }; break; }
    }
  }
  const old = previous ? new Set(previous.events.map((e) => e[0])) : null;
  const events = data.events;
  const rows = (from, to) => events.slice(from, to).map((e) => rowHTML(e, old)).join("");
  const serial = ++listSerial;
  const whole = previous || (state.selected && events.findIndex((e) => e[0] === state.selected) >= FIRST_ROWS);
  const first = whole ? events.length : FIRST_ROWS;
  const scrollTop = pane.scrollTop;
  $("rows").innerHTML = rows(0, first);
  $("rows").dataset.complete = String(first >= events.length);
  if (anchor) {
    const tr = rowOf(anchor.id);
    const top = pane.getBoundingClientRect().top + $("list").tHead.offsetHeight;
    pane.scrollTop = tr ? pane.scrollTop + (tr.getBoundingClientRect().top - top) - anchor.offset : scrollTop;
  } else if (state.selected) {
    scrollToRow(state.selected, "nearest");
  }
  if (old) {
    setTimeout(() => { for (const tr of $("rows").querySelectorAll("tr.new")) tr.classList.remove("new"); }, 4000);
  }
  const more = (from) => {
    if (serial !== listSerial || from >= events.length) return;
    $("rows").insertAdjacentHTML("beforeend", rows(from, from + MORE_ROWS));
    $("rows").dataset.complete = String(from + MORE_ROWS >= events.length);
    setTimeout(() => more(from + MORE_ROWS), 0);
  };
  if (first < events.length) requestAnimationFrame(() => setTimeout(() => more(first), 0));
}

function rowHTML(e, old) {
  const [id, time, mag, place, depth] = e;
  const cls = [id === state.selected ? "selected" : "", old && !old.has(id) ? "new" : ""].filter(Boolean).join(" ");
  return `<tr data-event-id="${escapeHTML(id)}"${cls ? ` class="${cls}"` : ""}` +
    ` aria-selected="${id === state.selected}">` +
    `<td>${time === null ? "" : fmtTime(time)}</td><td class="num">${mag === null ? "" : Number(mag).toFixed(1)}</td>` +
    `<td class="place">${escapeHTML(place || "")}</td>` +
    `<td class="num">${depth === null ? "" : Number(depth).toFixed(1)}</td></tr>`;
}

function renderEmpty() {
  const box = $("empty");
  box.hidden = data.matched > 0;
  if (data.matched > 0) return;
  const filtered = state.search || state.minmagnitude !== "" || state.region || state.inview;
  const when = data.day ? `on ${data.day}`
    : data.label.startsWith("past") ? `in the ${data.label}` : `from ${data.label}`;
  const parts = [`<p>No quakes ${escapeHTML(when)}${filtered ? " match the search and filters" : ""}.</p>`];
  const links = [];
  if (data.before) links.push(`Earlier: <a id="empty-before" href="?${dayLink(data.before)}">${data.before}</a>`);
  if (data.after) links.push(`Later: <a id="empty-after" href="?${dayLink(data.after)}">${data.after}</a>`);
  parts.push(links.length ? `<p>${links.join(" · ")}</p>` : "<p>The store holds no such quakes.</p>");
  box.innerHTML = parts.join("");
}

// the same view on another day
function dayLink(day) {
  const p = viewParams(false);
  for (const k of ["starttime", "endtime", "last"]) p.delete(k);
  p.set("day", day);
  if (state.inview) p.set("inview", "1");
  return p.toString();
}

// A view the server refused (a bad date, a range over 31 days, a region upside down): the reason
// where the list would be, and ways out.
function renderError(message) {
  data = null;
  $("rows").innerHTML = "";
  $("rows").dataset.complete = "true";
  QuakeMap.draw([], null);
  $("clear-region").hidden = !state.region;
  const box = $("empty");
  box.hidden = false;
  box.innerHTML = `<p>This view cannot be shown: ${escapeHTML(message)}</p>` +
    `<p><a id="error-newest" href="?">Show the newest day</a>` +
    (state.region ? ` · <a id="error-clear-region" href="?${escapeHTML(withoutRegion())}">Clear the region</a>` : "") +
    "</p>";
  $("status").textContent = "Could not load";
  delete $("status").dataset.matched;
  renderNotes(0, 0);
  QuakeStats.refresh();
  for (const id of ["dl-csv", "dl-geojson", "dl-quakeml", "dl-kml"]) {
    $(id).removeAttribute("href");
    $(id).setAttribute("aria-disabled", "true");
  }
}

function withoutRegion() {
  const p = viewParams(false);
  for (const k of REGION_KEYS) p.delete(k);
  return p.toString();
}

function renderFooter() {
  const n = data.matched.toLocaleString("en-US"), total = data.total.toLocaleString("en-US");
  $("status").textContent = `${n} of ${total} quakes`;
  $("status").dataset.matched = data.matched;
  $("status").dataset.total = data.total;
  $("status").dataset.generation = data.generation;
}

function renderNotes(drawn, located) {
  $("notes").textContent = [drawn < located ? `Map shows the ${drawn.toLocaleString("en-US")} largest of ` +
    `${located.toLocaleString("en-US")} quakes.` : "", coastlineNote,
  ignored.length ? `Not understood in the URL, ignored: ${ignored.join(", ")}.` : ""].filter(Boolean).join(" ");
}

function renderDownloads() {
  const first = isoTime(data.start).slice(0, 10), last = isoTime(data.end - 1).slice(0, 10);
  const name = data.day ?? (first === last ? first : `${first}_${last}`);
  for (const [id, fmt, ext] of [["dl-csv", "csv", "csv"], ["dl-geojson", "geojson", "geojson"],
    ["dl-quakeml", "quakeml", "xml"], ["dl-kml", "kml", "kml"]]) {
    const a = $(id);
    a.setAttribute("download", `quakes-${name}.${ext}`);
    if (data.matched === 0) { a.removeAttribute("href"); a.setAttribute("aria-disabled", "true"); continue; }
    const p = viewParams(true);
    if (state.last) {
      // the past hours as listed, not as they will be when the link is followed
      p.delete("last");
      p.set("starttime", isoTime(data.start));
      p.set("endtime", isoTime(data.end - 1));
    }
    p.set("format", fmt);
    a.href = "/api/download?" + p.toString();
    a.removeAttribute("aria-disabled");
  }
}

const isoTime = (ms) => new Date(ms).toISOString().replace("Z", "");

// ---------- selection and detail ----------

function rowOf(id) {
  return id === null ? null : $("rows").querySelector(`tr[data-event-id="${CSS.escape(id)}"]`);
}

function select(id, from) {
  state.selected = id;
  writeURL(false);
  for (const tr of $("rows").querySelectorAll("tr.selected")) {
    tr.classList.remove("selected");
    tr.setAttribute("aria-selected", "false");
  }
  const tr = rowOf(id);
  if (tr) { tr.classList.add("selected"); tr.setAttribute("aria-selected", "true"); }
  QuakeMap.setSelected(id, from !== "map");
  if (from !== "list" && tr) tr.scrollIntoView({ block: from === "map" ? "center" : "nearest" });
  if (!$("detail").hidden && id) openDetail(id);
}

function scrollToRow(id, block) {
  const row = rowOf(id);
  if (row) row.scrollIntoView({ block });
}

function step(delta) {
  if (!data || !data.events.length) return;
  const k = data.events.findIndex((e) => e[0] === state.selected);
  const last = data.events.length - 1;
  const next = k < 0 ? (delta > 0 ? 0 : last) : Math.min(last, Math.max(0, k + delta));
  select(data.events[next][0], "keys");
}

// The detail panel lies over the map's side: the selected marker is moved out from under it.
function keepSelectedClear() {
  if (!$("detail").hidden) QuakeMap.keepClear($("detail").getBoundingClientRect());
}

// The units of the detail's numbers, as USGS's event page gives them: km for depth and distances,
// degrees for coordinates, the azimuthal gap and the distance to the nearest station, seconds for
// the travel-time residual, minutes for the time zone's offset.
const UNITS = { latitude: "°", longitude: "°", depth: "km", horizontalError: "km", depthError: "km", gap: "°",
  dmin: "°", rms: "s", tz: "min" };
const KM_PER_DEGREE = 111.19;

// a detail field's value as shown: lists as lists, numbers with their unit (dmin in km as well)
function fieldText(key, value) {
  if (typeof value === "string" && /^,.*,$/.test(value)) return value.split(",").filter(Boolean).join(", ");
  const unit = UNITS[key];
  if (typeof value !== "number" || !unit) return String(value);
  const text = unit === "°" ? `${value}°` : `${value} ${unit}`;
  return key === "dmin" ? `${text} (${(value * KM_PER_DEGREE).toFixed(1)} km)` : text;
}

async function openDetail(id) {
  const panel = $("detail");
  panel.hidden = false;
  panel.dataset.eventId = id;
  keepSelectedClear();
  $("detail-title").textContent = id;
  $("detail-fields").innerHTML = "<tr><td>Loading…</td></tr>";
  $("detail-usgs").hidden = true;
  let ev;
  try {
    const r = await fetch("/api/event?id=" + encodeURIComponent(id), { cache: "no-store" });
    ev = await r.json();
    if (!r.ok) throw new Error(ev.error || r.statusText);
  } catch (e) {
    $("detail-fields").innerHTML = `<tr><td>${escapeHTML("Could not load: " + e.message)}</td></tr>`;
    return;
  }
  if (panel.dataset.eventId !== id) return;
  $("detail-title").textContent = `M${ev.mag ?? "?"} · ${ev.place ?? id}`;
  $("detail-fields").innerHTML = Object.entries(ev).filter(([, v]) => v !== null)
    .map(([k, v]) => `<tr><th scope="row">${escapeHTML(k)}</th><td>${escapeHTML(fieldText(k, v))}</td></tr>`).join("");
  // ComCat ids are the preferred network's code and the event's: the USGS site has a page for each
  const usgs = typeof ev.net === "string" && id.startsWith(ev.net) && /^[a-z]{2}[a-z0-9_]+$/.test(id);
  $("detail-usgs").hidden = !usgs;
  if (usgs) $("detail-usgs").href = "https://earthquake.usgs.gov/earthquakes/eventpage/" + encodeURIComponent(id);
  $("detail-close").focus({ preventScroll: true });
}

function closeDetail() {
  $("detail").hidden = true;
  $("detail").dataset.eventId = "";
}

// ---------- the map's coastlines ----------

// the first "drawn" mark waits for the coastlines too: the map is not drawn without them
let coastlineNote = "", coastlinesLoaded;
const coastlinesDone = new Promise((resolve) => { coastlinesLoaded = resolve; });
async function loadCoastlines() {
  try {
    const early = window.quakesCoastlines;
    window.quakesCoastlines = null;
    const r = await (early || fetch("/api/coastlines"));
    const g = await r.json();
    if (!r.ok) throw new Error(g.error || r.statusText);
    QuakeMap.drawCoastlines(g);
    performance.mark("quakes-coastlines");
  } catch (e) {
    coastlineNote = "No coastline dataset on the server: graticule only.";
    $("coastlines").dataset.missing = "true";
    if (data) renderNotes(Infinity, 0);
  }
  coastlinesLoaded();
}

// ---------- live updates ----------

function liveKey() {
  const p = new URLSearchParams();
  for (const k of ["day", "starttime", "endtime", "last"]) if (state[k]) p.set(k, state[k]);
  if (!state.day && data && data.day) p.set("day", data.day);
  return p.toString();
}

function subscribe() {
  const key = liveKey();
  if (live && live.key === key) return;
  if (live) live.source.close();
  const source = new EventSource("/api/live?" + key);
  live = { key, source };
  source.addEventListener("hello", () => $("live").classList.add("on"));
  source.addEventListener("change", () => load({ resubscribe: false, live: true }));
  source.onerror = () => $("live").classList.remove("on");
}

// a page leaving (or entering the back-forward cache) gives its connection back: browsers allow
// six HTTP/1.1 connections per server, and a live feed holds one
window.addEventListener("pagehide", () => { if (live) { live.source.close(); live = null; } });
window.addEventListener("pageshow", (e) => { if (e.persisted) load(); });
// the past hours move with the clock
setInterval(() => { if (state.last && !document.hidden) load({ resubscribe: false, live: true }); }, 60000);

// ---------- controls ----------

// a new window: the map fits it again, the selection goes
function setWindow(w) {
  Object.assign(state, { day: null, starttime: null, endtime: null, last: null }, w);
  state.selected = null;
  state.map = null;
  writeURL(true);
  load();
}

function shiftDay(days) {
  const valid = (d) => (/^\d{4}-\d{2}-\d{2}$/.test(d || "") ? d : null);
  const from = valid(data?.day) || (data ? isoTime(data.start).slice(0, 10) : null)
    || valid(state.day) || valid((state.starttime || "").slice(0, 10)) || new Date().toISOString().slice(0, 10);
  const t = Date.parse(from + "T00:00:00Z") + days * 86400000;
  setWindow({ day: new Date(t).toISOString().slice(0, 10) });
}

// The date field commits a typed date once: on Enter, on leaving the field, or when a date with a
// four-digit year has stood for 1.5 s with no key pressed (typing "2019" passes through 0002, 0020
// and 0201, and a new month and day come before the year). A date picked from the calendar, with
// no key pressed lately, commits at once. A date left incomplete goes back to the view's.
function setUpDateField() {
  const input = $("day");
  let timer = null, lastKey = 0;
  const complete = (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && +v.slice(0, 4) >= 1000;
  const commit = () => {
    clearTimeout(timer);
    const v = input.value;
    if (!complete(v) || v === state.day) return;
    setWindow({ day: v });
  };
  const later = () => { clearTimeout(timer); timer = setTimeout(commit, 1500); };
  input.addEventListener("change", () => {
    if (Date.now() - lastKey > 1500) commit(); else later();
  });
  input.addEventListener("keydown", (e) => {
    lastKey = Date.now();
    if (e.key === "Enter") commit(); else if (timer) later();
  });
  input.addEventListener("blur", () => {
    commit();
    if (!complete(input.value)) input.value = state.day || data?.day || "";
  });
}

function setUpControls() {
  $("prev-day").onclick = () => shiftDay(-1);
  $("next-day").onclick = () => shiftDay(1);
  setUpDateField();
  for (const b of document.querySelectorAll("button[data-last]")) b.onclick = () => setWindow({ last: b.dataset.last });
  // a burst of typing in the search field is one history entry, so Back returns to before it
  let timer = null, burst = false, burstTimer = null;
  $("search").addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      state.search = $("search").value;
      writeURL(!burst);
      burst = true;
      clearTimeout(burstTimer);
      burstTimer = setTimeout(() => { burst = false; }, 1500);
      load({ keepMap: true });
    }, 150);
  });
  $("minmag").addEventListener("change", () => {
    state.minmagnitude = $("minmag").value;
    writeURL(true);
    load({ keepMap: true });
  });
  $("inview").addEventListener("change", () => {
    state.inview = $("inview").checked;
    if (state.inview) state.region = null;
    writeURL(true);
    load({ keepMap: true });
  });
  $("clear-region").onclick = () => { state.region = null; writeURL(true); load({ keepMap: true }); };
  for (const th of document.querySelectorAll("th[data-sort]")) {
    const go = () => {
      const key = th.dataset.sort;
      state.orderby = state.orderby === key ? key + "-asc" : key;
      writeURL(true);
      load({ keepMap: true });
    };
    th.addEventListener("click", go);
    th.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
  }
  $("rows").addEventListener("click", (e) => {
    const tr = e.target.closest("tr");
    if (tr) select(tr.dataset.eventId, "list");
  });
  $("rows").addEventListener("dblclick", (e) => {
    const tr = e.target.closest("tr");
    if (tr) { select(tr.dataset.eventId, "list"); openDetail(tr.dataset.eventId); }
  });
  $("detail-close").onclick = closeDetail;
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !$("detail").hidden) { closeDetail(); return; }
    const t = e.target;
    if (t.closest && t.closest("input, select, textarea, button, a, th")) return;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); step(e.key === "ArrowDown" ? 1 : -1); }
    else if (e.key === "Enter" && state.selected) { e.preventDefault(); openDetail(state.selected); }
  });
  window.addEventListener("popstate", () => { readURL(); load(); });
  // a window made smaller can bring the panel over the selected marker
  window.addEventListener("resize", keepSelectedClear);
}

let tipTimer = null;
function hover(id, evt) {
  const tip = $("tip");
  clearTimeout(tipTimer);
  if (!id || !data) { tipTimer = setTimeout(() => { tip.hidden = true; }, 100); return; }
  const e = data.events.find((x) => x[0] === id);
  if (!e) return;
  tip.textContent = `M${e[2] ?? "?"} · ${e[3] ?? ""} · ${e[1] === null ? "" : fmtTime(e[1])} UTC`;
  const pane = $("map-pane").getBoundingClientRect();
  tip.style.left = Math.min(pane.width - 260, evt.clientX - pane.left + 12) + "px";
  tip.style.top = (evt.clientY - pane.top + 12) + "px";
  tip.hidden = false;
}

let movedTimer = null;
function mapMoved() {
  state.map = QuakeMap.urlValue();
  clearTimeout(movedTimer);
  movedTimer = setTimeout(() => {
    writeURL(false);
    if (state.inview) load({ keepMap: true, resubscribe: false });
  }, 250);
}

readURL();
performance.mark("quakes-setup");
QuakeMap.setUp({
  select: (id) => select(id, "map"),
  open: (id) => {
    if (state.selected !== id) select(id, "map");
    openDetail(id);
  },
  moved: mapMoved,
  hover,
  region: (r) => {
    state.region = r;
    state.inview = false;
    writeURL(true);
    load({ keepMap: true });
  },
});
// before the controls: Escape closes the detail first, then the statistics
QuakeStats.setUp({ params: () => viewParams(true), open: state.stats,
  toggled: (open) => { state.stats = open; writeURL(false); } });
setUpControls();
performance.mark("quakes-ready");
load();
loadCoastlines();
