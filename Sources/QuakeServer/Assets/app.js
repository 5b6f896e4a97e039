// The quake browser: one UTC day's quakes as a list and a map, kept in the URL and kept live.
"use strict";

const MAX_MARKERS = 5000;               // a swarm day draws its largest quakes only
const DEPTH_BANDS = [[35, "#d7301f", "0–35 km"], [70, "#fc8d59", "35–70"], [150, "#fdcc8a", "70–150"],
  [300, "#78c679", "150–300"], [500, "#4292c6", "300–500"], [Infinity, "#6a51a3", "500+ km"]];
const SVG_NS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const state = { day: null, orderby: "time", search: "", minmagnitude: "", selected: null };
let data = null;            // the last answer of /api/day
let requestSerial = 0;      // answers to superseded requests are dropped
let live = null;            // the EventSource of the shown day
let view = { x: -180, y: -90, w: 360, h: 180 };

// ---------- URL state ----------

function readURL() {
  const p = new URLSearchParams(location.search);
  state.day = /^\d{4}-\d{2}-\d{2}$/.test(p.get("day") || "") ? p.get("day") : null;
  state.orderby = ["time", "time-asc", "magnitude", "magnitude-asc"].includes(p.get("orderby")) ? p.get("orderby") : "time";
  state.search = p.get("search") || "";
  state.minmagnitude = p.get("minmagnitude") || "";
  state.selected = p.get("selected") || null;
}

function stateQuery(withSelection) {
  const p = new URLSearchParams();
  if (state.day) p.set("day", state.day);
  p.set("orderby", state.orderby);
  if (state.search) p.set("search", state.search);
  if (state.minmagnitude !== "") p.set("minmagnitude", state.minmagnitude);
  if (withSelection && state.selected) p.set("selected", state.selected);
  return p.toString();
}

function writeURL(push) {
  const url = "?" + stateQuery(true);
  if (url === location.search) return;
  if (push) history.pushState(null, "", url); else history.replaceState(null, "", url);
}

// ---------- data ----------

async function load(options = {}) {
  const serial = ++requestSerial;
  const q = new URLSearchParams();
  if (state.day) q.set("day", state.day);
  q.set("orderby", state.orderby);
  if (state.search) q.set("search", state.search);
  if (state.minmagnitude !== "") q.set("minmagnitude", state.minmagnitude);
  let answer;
  try {
    const r = await fetch("/api/day?" + q.toString(), { cache: "no-store" });
    answer = await r.json();
    if (!r.ok) throw new Error(answer.error || r.statusText);
  } catch (e) {
    if (serial === requestSerial) $("status").textContent = "Could not load: " + e.message;
    return;
  }
  if (serial !== requestSerial) return;
  data = answer;
  if (!state.day) { state.day = data.day; writeURL(false); }
  if (state.selected && !data.events.some((e) => e[0] === state.selected) && !options.keepMissingSelection) {
    state.selected = null;
    writeURL(false);
  }
  render();
  if (options.resubscribe !== false) subscribe();
}

// ---------- rendering ----------

function fmtTime(ms) {
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19);
}

function depthColor(d) {
  if (d === null) return "#bbbbbb";
  for (const [upTo, color] of DEPTH_BANDS) if (d < upTo) return color;
  return "#6a51a3";
}

function radiusPx(m) {
  if (m === null || m <= 1) return 1.6;
  return 1.6 + 1.1 * Math.pow(Math.min(m, 10) - 1, 1.6);
}

function render() {
  $("day").value = state.day || "";
  $("search").value = state.search;
  $("minmag").value = state.minmagnitude;
  for (const th of document.querySelectorAll("th[data-sort]")) {
    const key = th.dataset.sort;
    const active = state.orderby.startsWith(key);
    th.classList.toggle("sorted", active);
    th.classList.toggle("asc", active && state.orderby.endsWith("-asc"));
    th.classList.toggle("desc", active && !state.orderby.endsWith("-asc"));
  }
  renderList();
  renderMarkers();
  renderFooter();
  renderDownloads();
}

function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }[c]));
}

function renderList() {
  const rows = [];
  for (const e of data.events) {
    const [id, time, mag, place, depth] = e;
    rows.push(`<tr data-event-id="${escapeHTML(id)}"${id === state.selected ? ' class="selected"' : ""}>` +
      `<td>${time === null ? "" : fmtTime(time)}</td><td class="num">${mag === null ? "" : Number(mag).toFixed(1)}</td>` +
      `<td class="place">${escapeHTML(place || "")}</td><td class="num">${depth === null ? "" : Number(depth).toFixed(1)}</td></tr>`);
  }
  $("rows").innerHTML = rows.join("");
  if (state.selected) scrollToRow(state.selected, "nearest");
}

function renderMarkers() {
  const g = $("markers");
  g.textContent = "";
  // largest first, so that they lie behind the smaller; a busy day draws only the largest
  const order = data.events.filter((e) => e[5] !== null && e[6] !== null)
    .sort((a, b) => (b[2] ?? -99) - (a[2] ?? -99));
  const drawn = order.slice(0, MAX_MARKERS);
  const scale = unitsPerPixel();
  const frag = document.createDocumentFragment();
  for (const e of drawn) {
    const c = document.createElementNS(SVG_NS, "circle");
    c.setAttribute("cx", e[6]);
    c.setAttribute("cy", -e[5]);
    c.dataset.eventId = e[0];
    c.dataset.r = radiusPx(e[2]);
    c.setAttribute("r", c.dataset.r * scale);
    c.setAttribute("stroke-width", 0.6 * scale);
    c.setAttribute("fill", depthColor(e[4]));
    const t = document.createElementNS(SVG_NS, "title");
    t.textContent = `M${e[2] ?? "?"} · ${e[3] ?? ""} · ${e[1] === null ? "" : fmtTime(e[1])} UTC`;
    c.appendChild(t);
    if (e[0] === state.selected) c.classList.add("selected");
    frag.appendChild(c);
  }
  g.appendChild(frag);
  raiseSelected();
  const capped = order.length > drawn.length;
  $("notes").textContent = [capped ? `Map shows the ${drawn.length.toLocaleString("en-US")} largest of ` +
    `${order.length.toLocaleString("en-US")} quakes.` : "", coastlineNote].filter(Boolean).join(" ");
}

function renderFooter() {
  const n = data.matched.toLocaleString("en-US"), total = data.total.toLocaleString("en-US");
  $("status").textContent = `${n} of ${total} quakes`;
  $("status").dataset.matched = data.matched;
  $("status").dataset.total = data.total;
  $("status").dataset.generation = data.generation;
}

function renderDownloads() {
  const start = state.day + "T00:00:00";
  const end = state.day + "T23:59:59.999";  // endtime is inclusive: the day's last millisecond
  const p = new URLSearchParams({ starttime: start, endtime: end, orderby: state.orderby });
  if (state.minmagnitude !== "") p.set("minmagnitude", state.minmagnitude);
  if (state.search) p.set("placecontains", state.search);
  for (const [id, fmt] of [["dl-csv", "csv"], ["dl-geojson", "geojson"], ["dl-quakeml", "xml"]]) {
    p.set("format", fmt);
    $(id).href = "/fdsnws/event/1/query?" + p.toString();
  }
}

// ---------- selection ----------

function select(id, from) {
  state.selected = id;
  writeURL(false);
  for (const el of document.querySelectorAll(".selected")) el.classList.remove("selected");
  if (id) {
    for (const el of document.querySelectorAll(`[data-event-id="${CSS.escape(id)}"]`)) el.classList.add("selected");
    raiseSelected();
    if (from === "map") scrollToRow(id, "center");
  }
}

function raiseSelected() {
  if (!state.selected) return;
  const c = $("markers").querySelector(`circle[data-event-id="${CSS.escape(state.selected)}"]`);
  if (c) c.parentNode.appendChild(c);
}

function scrollToRow(id, block) {
  const row = $("rows").querySelector(`tr[data-event-id="${CSS.escape(id)}"]`);
  if (row) row.scrollIntoView({ block });
}

// ---------- the map: projection, pan and zoom ----------

function unitsPerPixel() {
  const svg = $("map");
  const w = svg.clientWidth || 800, h = svg.clientHeight || 400;
  return Math.max(view.w / w, view.h / h);
}

function applyView() {
  $("map").setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
  const s = unitsPerPixel();
  for (const c of $("markers").children) {
    c.setAttribute("r", c.dataset.r * s);
    c.setAttribute("stroke-width", 0.6 * s);
  }
  $("coastlines").setAttribute("stroke-width", 0.8 * s);
  for (const l of $("graticule").children) l.setAttribute("stroke-width", 0.5 * s);
}

function zoom(factor, cx, cy) {
  const w = Math.min(720, Math.max(0.5, view.w * factor));
  const f = w / view.w;
  if (cx === undefined) { cx = view.x + view.w / 2; cy = view.y + view.h / 2; }
  view = { x: cx - (cx - view.x) * f, y: cy - (cy - view.y) * f, w, h: view.h * f };
  applyView();
}

function svgPoint(evt) {
  const svg = $("map");
  const pt = svg.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse());
}

function setUpMap() {
  const svg = $("map");
  const grat = $("graticule");
  for (let lon = -180; lon <= 180; lon += 30) grat.appendChild(line(lon, -90, lon, 90));
  for (let lat = -60; lat <= 60; lat += 30) grat.appendChild(line(-180, -lat, 180, -lat));
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = svgPoint(e);
    zoom(e.deltaY < 0 ? 0.8 : 1.25, p.x, p.y);
  }, { passive: false });
  let drag = null;
  svg.addEventListener("pointerdown", (e) => {
    if (e.target.tagName === "circle") return;
    drag = { x: e.clientX, y: e.clientY, view: { ...view }, moved: false };
    svg.setPointerCapture(e.pointerId);
  });
  svg.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const s = unitsPerPixel();
    const dx = (e.clientX - drag.x) * s, dy = (e.clientY - drag.y) * s;
    if (Math.abs(dx) + Math.abs(dy) > 0) { drag.moved = true; svg.classList.add("dragging"); }
    view = { ...drag.view, x: drag.view.x - dx, y: drag.view.y - dy };
    applyView();
  });
  const end = () => { drag = null; svg.classList.remove("dragging"); };
  svg.addEventListener("pointerup", end);
  svg.addEventListener("pointercancel", end);
  $("markers").addEventListener("click", (e) => {
    const c = e.target.closest("circle");
    if (c) select(c.dataset.eventId, "map");
  });
  $("zoom-in").onclick = () => zoom(0.5);
  $("zoom-out").onclick = () => zoom(2);
  $("zoom-reset").onclick = () => { view = { x: -180, y: -90, w: 360, h: 180 }; applyView(); };
  window.addEventListener("resize", applyView);
  $("legend").innerHTML = "Depth" + DEPTH_BANDS.map(([, c, l]) => `<span class="sw" style="background:${c}"></span>${l}`).join("");
}

function line(x1, y1, x2, y2) {
  const l = document.createElementNS(SVG_NS, "line");
  l.setAttribute("x1", x1); l.setAttribute("y1", y1); l.setAttribute("x2", x2); l.setAttribute("y2", y2);
  return l;
}

let coastlineNote = "";
async function loadCoastlines() {
  try {
    const r = await fetch("/api/coastlines");
    const g = await r.json();
    if (!r.ok) throw new Error(g.error || r.statusText);
    const parts = [];
    for (const f of g.features) {
      for (const ring of f.geometry.coordinates) {
        parts.push("M" + ring.map(([x, y]) => x + "," + (-y)).join("L"));
      }
    }
    $("coastlines").setAttribute("d", parts.join(""));
  } catch (e) {
    coastlineNote = "No coastline dataset on the server: graticule only.";
    $("coastlines").dataset.missing = "true";
    if (data) renderMarkers();
  }
  applyView();
}

// ---------- live updates ----------

function subscribe() {
  if (live && live.day === state.day) return;
  if (live) live.source.close();
  const source = new EventSource("/api/live?day=" + encodeURIComponent(state.day));
  live = { day: state.day, source };
  source.addEventListener("hello", () => $("live").classList.add("on"));
  source.addEventListener("change", () => load({ resubscribe: false, keepMissingSelection: true }));
  source.onerror = () => $("live").classList.remove("on");
}

// a page leaving (or entering the back-forward cache) gives its connection back: browsers allow
// six HTTP/1.1 connections per server, and a live feed holds one
window.addEventListener("pagehide", () => { if (live) { live.source.close(); live = null; } });
window.addEventListener("pageshow", (e) => { if (e.persisted && state.day) load(); });

// ---------- controls ----------

function shiftDay(days) {
  const t = Date.parse((state.day || new Date().toISOString().slice(0, 10)) + "T00:00:00Z") + days * 86400000;
  state.day = new Date(t).toISOString().slice(0, 10);
  state.selected = null;
  writeURL(true);
  load();
}

function setUpControls() {
  $("prev-day").onclick = () => shiftDay(-1);
  $("next-day").onclick = () => shiftDay(1);
  $("day").addEventListener("change", () => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test($("day").value)) return;
    state.day = $("day").value;
    state.selected = null;
    writeURL(true);
    load();
  });
  let timer = null;
  $("search").addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => { state.search = $("search").value; writeURL(false); load(); }, 150);
  });
  $("minmag").addEventListener("change", () => { state.minmagnitude = $("minmag").value; writeURL(true); load(); });
  for (const th of document.querySelectorAll("th[data-sort]")) {
    const go = () => {
      const key = th.dataset.sort;
      state.orderby = state.orderby === key ? key + "-asc" : key;
      writeURL(true);
      load();
    };
    th.addEventListener("click", go);
    th.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
  }
  $("rows").addEventListener("click", (e) => {
    const tr = e.target.closest("tr");
    if (tr) select(tr.dataset.eventId, "list");
  });
  window.addEventListener("popstate", () => { readURL(); load(); });
}

readURL();
setUpMap();
setUpControls();
loadCoastlines();
load();
