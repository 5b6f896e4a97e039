// The page's map: an equirectangular world in an SVG whose user units are degrees (x = longitude,
// y = -latitude). It wraps east and west (coastlines and quakes are drawn again 360° either side),
// fits the shown quakes the shorter way across 180°, pans, zooms, rings the selection, keeps it clear
// of a panel over the map and draws a region with shift-drag. It knows nothing of the list: app.js
// hands it events and callbacks.
"use strict";

performance.mark("quakes-js");
const QuakeMap = (() => {
  const DEPTH_BANDS = [[35, "#d7301f", "0–35 km"], [70, "#fc8d59", "35–70"], [150, "#fdcc8a", "70–150"],
    [300, "#78c679", "150–300"], [500, "#4292c6", "300–500"], [Infinity, "#6a51a3", "500+ km"]];
  const MAX_MARKERS = 5000;        // a swarm day draws its largest quakes only
  const DOUBLE_CLICK_MS = 500;     // two clicks on a marker this close together open it
  const MIN_SCALE = 360 / (256 * 2 ** 12);   // degrees per pixel at zoom 12
  const el = (id) => document.getElementById(id);

  // the view: its centre (cx = longitude, kept in -180...180; cy = -latitude) and degrees per pixel
  let view = { cx: 0, cy: 0, s: 1 };
  // The drawn events, largest first: [id, lat, lon, radius px, depth band]. They are painted on a
  // canvas between the base map's SVG (ocean, land, coastlines) and the SVG on top (region,
  // selection): as SVG elements, 5,000 circles took a quarter of a second to show; painted, a few
  // milliseconds, again on every pan and zoom. Only the selection is an element of its own.
  let events = [];
  let xs = new Float64Array(0);    // each marker's x: its longitude, within 180° of the view's centre
  let byId = new Map();            // event id -> index in events
  let selected = null;
  let hooks = { select() {}, open() {}, moved() {}, region() {} };
  let svg;

  const wrap180 = (x) => ((x + 180) % 360 + 360) % 360 - 180;
  const size = () => ({ w: svg.clientWidth || 800, h: svg.clientHeight || 400 });

  function depthBand(d) {
    if (d === null) return DEPTH_BANDS.length;
    const k = DEPTH_BANDS.findIndex(([upTo]) => d < upTo);
    return k < 0 ? DEPTH_BANDS.length - 1 : k;
  }

  const bandColor = (k) => (k < DEPTH_BANDS.length ? DEPTH_BANDS[k][1] : "#bbbbbb");

  function radiusPx(m) {
    if (m === null || m <= 1) return 1.6;
    return 1.6 + 1.1 * Math.pow(Math.min(m, 10) - 1, 1.6);
  }

  // ---------- the view ----------

  // the largest scale: the whole world, its height filling a wide pane (wrapped, more than 360°
  // across) and its width a tall one, and never more than two worlds across (the copies cover that)
  function maxScale() {
    const { w, h } = size();
    return Math.min(Math.max(180 / h, 360 / w), 720 / w);
  }

  function clampView() {
    const { h } = size();
    view.s = Math.min(maxScale(), Math.max(MIN_SCALE, view.s));
    view.cx = wrap180(view.cx);
    const half = (h * view.s) / 2;
    view.cy = half >= 90 ? 0 : Math.min(90 - half, Math.max(-90 + half, view.cy));
  }

  // the view's box in degrees: west, east (east - west <= 720), north, south
  function bounds() {
    const { w, h } = size();
    return { west: view.cx - (w * view.s) / 2, east: view.cx + (w * view.s) / 2,
      north: -(view.cy - (h * view.s) / 2), south: -(view.cy + (h * view.s) / 2) };
  }

  // Sets both SVGs' viewBox, moves each marker within 180° of the view's centre and paints them.
  // Strokes do not scale.
  function applyView(zoomed) {
    clampView();
    const { w, h } = size();
    const s = view.s;
    const box = `${view.cx - (w * s) / 2} ${view.cy - (h * s) / 2} ${w * s} ${h * s}`;
    svg.setAttribute("viewBox", box);
    el("basemap").setAttribute("viewBox", box);
    for (let k = 0; k < events.length; k++) xs[k] = wrapNear(events[k][2]);
    paint();
    placeRegion();
    const copies = w * s > 360 ? "" : "none";
    for (const u of svg.querySelectorAll("use.quake-copy")) if (u.style.display !== copies) u.style.display = copies;
    // a copy of the world out of view is not drawn (the coastlines are the dearest paint)
    const west = view.cx - (w * s) / 2, east = view.cx + (w * s) / 2;
    for (const u of el("basemap").querySelectorAll("use.wrap-copy")) {
      const dx = +u.getAttribute("x"), shown = east > dx - 180 && west < dx + 180 ? "" : "none";
      if (u.style.display !== shown) u.style.display = shown;
    }
    markSelected();
    svg.dataset.view = urlValue();
  }

  const wrapNear = (lon) => lon + 360 * Math.round((view.cx - lon) / 360);

  // the zoom as web maps count it: the world is 256 * 2^zoom pixels wide
  const zoomOf = (s) => Math.log2(360 / (256 * s));
  const scaleOf = (z) => 360 / (256 * 2 ** z);

  function urlValue() {
    return `${(-view.cy).toFixed(3)},${wrap180(view.cx).toFixed(3)},${zoomOf(view.s).toFixed(2)}`;
  }

  // `lat,lon,zoom` from the URL; false when it does not read
  function setView(text) {
    const m = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(text || "");
    if (!m) return false;
    const [lat, lon, z] = [+m[1], +m[2], +m[3]];
    if (!(Math.abs(lat) <= 90 && Math.abs(lon) <= 360 && z >= -4 && z <= 20)) return false;
    view = { cx: lon, cy: -lat, s: scaleOf(z) };
    return true;
  }

  // the whole world's height, filling the pane (a wide pane shows more than 360°, wrapped)
  function setWhole() {
    view = { cx: 0, cy: 0, s: maxScale() };
  }

  // the view of a `lat,lon,zoom` text, drawn; false when it does not read
  function show(text) {
    if (!setView(text)) return false;
    applyView(true);
    return true;
  }

  // The view that holds every event: the longitudes' shortest span (the circle less its widest
  // gap between events, so a cluster across 180° is framed across it), with room for the
  // largest circle and a margin, so that no marker touches the edge.
  function setFit() {
    const pts = events;
    if (!pts.length) { setWhole(); return; }
    const lons = pts.map((e) => e[2]).sort((a, b) => a - b);
    let widest = lons[0] + 360 - lons[lons.length - 1], west = lons[0], east = lons[lons.length - 1];
    for (let k = 1; k < lons.length; k++) {
      if (lons[k] - lons[k - 1] > widest) { widest = lons[k] - lons[k - 1]; west = lons[k]; east = lons[k - 1] + 360; }
    }
    let south = 90, north = -90, rmax = 0;
    for (const e of pts) { south = Math.min(south, e[1]); north = Math.max(north, e[1]); rmax = Math.max(rmax, e[3]); }
    const { w, h } = size();
    const pad = 20 + rmax, legend = 34;   // the depth legend takes the foot of the pane
    const sx = (east - west) / Math.max(40, w - 2 * pad), sy = (north - south) / Math.max(40, h - 2 * pad - legend);
    const s = Math.max(sx, sy, scaleOf(8));
    view = { cx: (west + east) / 2, cy: -(north + south) / 2 + (legend / 2) * s, s };
  }

  function zoomAt(factor, x, y) {
    const old = view.s;
    view.s = Math.min(maxScale(), Math.max(MIN_SCALE, old * factor));
    const f = view.s / old;
    if (x !== undefined) { view.cx = x - (x - view.cx) * f; view.cy = y - (y - view.cy) * f; }
    applyView(true);
    hooks.moved();
  }

  // ---------- drawing ----------

  // Draws `list` ([id, time, mag, place, depth, lat, lon, ...]): largest first so the smaller
  // lie on top, and on a swarm day only the largest MAX_MARKERS. The view is settled first (`how`:
  // "fit", a `lat,lon,zoom` text, or nothing to keep it). Returns [drawn, with coordinates].
  function draw(list, how) {
    const order = list.filter((e) => e[5] !== null && e[6] !== null).sort((a, b) => (b[2] ?? -99) - (a[2] ?? -99));
    const drawn = order.slice(0, MAX_MARKERS);
    events = drawn.map((e) => [e[0], +e[5], +e[6], radiusPx(e[2]), depthBand(e[4])]);
    byId = new Map();
    for (let k = 0; k < events.length; k++) byId.set(events[k][0], k);
    if (how === "fit") setFit(); else if (how && !setView(how)) setFit();
    clampView();
    xs = new Float64Array(events.length);
    for (let k = 0; k < events.length; k++) xs[k] = wrapNear(events[k][2]);
    el("markers").dataset.count = events.length;
    applyView(true);
    return [drawn.length, order.length];
  }

  // Paints the markers, largest first (behind), each once within 180° of the view's centre and
  // again 360° either side when the view is wider than the world. Markers go in batches, one path
  // per size tier and depth colour, the larger tiers first: a fill and a stroke per batch rather
  // than per marker rasterize 5,000 markers in a third of the time.
  const TIERS = [8, 4, 2.5, 0];      // radius px at or above which a marker is in tier 0, 1, 2, 3
  function paint() {
    const canvas = el("markers"), { w, h } = size(), dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const s = view.s, x0 = view.cx - (w * s) / 2, y0 = view.cy - (h * s) / 2;
    const offsets = w * s > 360 ? [-360, 0, 360] : [0];
    const bands = DEPTH_BANDS.length + 1;
    const batches = Array.from({ length: TIERS.length * bands }, () => null);
    for (let k = 0; k < events.length; k++) {
      const [, lat, , r, band] = events[k];
      const py = (-lat - y0) / s;
      if (py < -r || py > h + r) continue;
      for (const off of offsets) {
        const px = (xs[k] + off - x0) / s;
        if (px < -r || px > w + r) continue;
        const i = TIERS.findIndex((t) => r >= t) * bands + band;
        const path = batches[i] ?? (batches[i] = new Path2D());
        path.moveTo(px + r, py);
        path.arc(px, py, r, 0, 2 * Math.PI);
      }
    }
    ctx.lineWidth = 0.6;
    ctx.strokeStyle = "#222";
    for (let i = 0; i < batches.length; i++) {
      if (!batches[i]) continue;
      ctx.globalAlpha = 0.8;
      ctx.fillStyle = bandColor(i % bands);
      ctx.fill(batches[i]);
      ctx.globalAlpha = 1;
      ctx.stroke(batches[i]);
    }
  }

  // The marker under a point of the map (SVG units), the smallest (top-most) when they overlap.
  function hit(p) {
    let best = -1;
    const slack = 3 * view.s;
    for (let k = 0; k < events.length; k++) {
      const dx = ((p.x - events[k][2]) % 360 + 540) % 360 - 180, dy = p.y + events[k][1];
      const r = events[k][3] * view.s + slack;
      if (dx * dx + dy * dy <= r * r && (best < 0 || events[k][3] <= events[best][3])) best = k;
    }
    return best < 0 ? null : events[best][0];
  }

  // The drawn markers where the page shows them, in client pixels: [{id, x, y, r}], for tests and tools.
  function markers() {
    const m = svg.getScreenCTM();
    return events.map((e, k) => {
      const pt = svg.createSVGPoint();
      pt.x = xs[k]; pt.y = -e[1];
      const q = pt.matrixTransform(m);
      return { id: e[0], x: q.x, y: q.y, r: e[3] };
    });
  }

  // The selection: its marker again as an element of its own (`data-selected`), and a larger ring
  // above every marker.
  function markSelected() {
    const c = el("selected-marker"), ring = el("selection-ring");
    const k = selected === null ? undefined : byId.get(selected);
    if (k === undefined) {
      for (const x of [c, ring]) { x.setAttribute("visibility", "hidden"); x.removeAttribute("data-event-id"); }
      c.removeAttribute("data-selected");
      return;
    }
    const [id, lat, , rpx, band] = events[k];
    for (const x of [c, ring]) {
      x.setAttribute("visibility", "visible");
      x.dataset.eventId = id;
      x.setAttribute("cx", xs[k]);
      x.setAttribute("cy", -lat);
    }
    c.setAttribute("data-selected", "");
    c.setAttribute("fill", bandColor(band));
    c.setAttribute("r", rpx * view.s);
    ring.setAttribute("r", (rpx + 5) * view.s);
  }

  // Selects `id` (null clears); with `reveal`, pans to its marker when it lies outside the view.
  function setSelected(id, reveal) {
    selected = id;
    markSelected();
    const k = id === null ? undefined : byId.get(id);
    if (k === undefined || !reveal) return;
    const b = bounds(), x = xs[k], y = events[k][1];
    const mx = (b.east - b.west) * 0.05, my = (b.north - b.south) * 0.05;
    if (x < b.west + mx || x > b.east - mx || y < b.south + my || y > b.north - my) {
      view.cx = x; view.cy = -y;
      applyView(false);
      hooks.moved();
    }
  }

  // Pans the view so that the selected marker, with its ring and a margin, lies clear of `cover`
  // (a client rect over the map, the detail panel): in the largest part of the map the cover leaves
  // free, beside it or above or below it. Returns whether the view moved.
  function keepClear(cover) {
    const k = selected === null ? undefined : byId.get(selected);
    if (k === undefined || !cover) return false;
    const box = svg.getBoundingClientRect();
    const s = view.s, { w, h } = size();
    const x = box.left + (xs[k] - view.cx) / s + w / 2, y = box.top + (-events[k][1] - view.cy) / s + h / 2;
    const reach = events[k][3] + 5 + 12;
    const across = x + reach > cover.left && x - reach < cover.right;
    if (!across || y + reach <= cover.top || y - reach >= cover.bottom) return false;
    const spaces = [
      { size: cover.left - box.left, x: (box.left + Math.max(box.left, cover.left)) / 2, y },
      { size: box.right - cover.right, x: (Math.min(box.right, cover.right) + box.right) / 2, y },
      { size: cover.top - box.top, x, y: (box.top + Math.max(box.top, cover.top)) / 2 },
      { size: box.bottom - cover.bottom, x, y: (Math.min(box.bottom, cover.bottom) + box.bottom) / 2 },
    ];
    const best = spaces.reduce((a, b) => (b.size > a.size ? b : a));
    if (best.size <= 0) return false;
    view.cx += (x - best.x) * s;
    view.cy += (y - best.y) * s;
    applyView(false);
    hooks.moved();
    return true;
  }

  // ---------- the region box ----------

  let region = null;               // {minlatitude, maxlatitude, minlongitude, maxlongitude} or null

  function setRegion(r) { region = r; placeRegion(); }

  function placeRegion() {
    const rect = el("region");
    if (!region) { rect.setAttribute("visibility", "hidden"); return; }
    const west = +(region.minlongitude ?? -180), east = +(region.maxlongitude ?? 180);
    const south = +(region.minlatitude ?? -90), north = +(region.maxlatitude ?? 90);
    if (![west, east, south, north].every(isFinite) || west > east || south > north) {
      rect.setAttribute("visibility", "hidden");
      return;
    }
    const x = west + 360 * Math.round((view.cx - (west + east) / 2) / 360);
    rect.setAttribute("x", x);
    rect.setAttribute("y", -north);
    rect.setAttribute("width", east - west);
    rect.setAttribute("height", north - south);
    rect.setAttribute("visibility", "visible");
  }

  // the view as a region, in FDSN's terms (longitudes past 180 across the antimeridian)
  function viewRegion() {
    const b = bounds();
    const r = { minlatitude: Math.max(-90, b.south), maxlatitude: Math.min(90, b.north) };
    if (b.east - b.west < 360) {
      r.minlongitude = wrap180(b.west);
      r.maxlongitude = r.minlongitude + (b.east - b.west);
    }
    return roundRegion(r);
  }

  function roundRegion(r) {
    const out = {};
    for (const [k, v] of Object.entries(r)) out[k] = Math.round(v * 1000) / 1000;
    return out;
  }

  // ---------- coastlines ----------

  // A ring's edges drawn as coastline: not those along the datasets' cuts (the ±180 meridian, the
  // meridian down to the South Pole where Antarctica is split, the pole's own parallel).
  function isSeam(a, b) {
    if (a[1] <= -89.99 && b[1] <= -89.99) return true;
    if (a[0] === b[0] && (Math.abs(a[0]) === 180 || a[1] <= -89.99 || b[1] <= -89.99)) return true;
    return false;
  }

  function drawCoastlines(g) {
    const fill = [], stroke = [];
    for (const f of g.features) {
      for (const ring of f.geometry.coordinates) {
        if (ring.length < 2) continue;
        fill.push("M" + ring.map(([x, y]) => x + "," + -y).join("L") + "Z");
        let pen = false;
        for (let k = 1; k < ring.length; k++) {
          const a = ring[k - 1], b = ring[k];
          if (isSeam(a, b)) { pen = false; continue; }
          stroke.push((pen ? "L" : "M" + a[0] + "," + -a[1] + "L") + b[0] + "," + -b[1]);
          pen = true;
        }
      }
    }
    el("land").setAttribute("d", fill.join(""));
    el("coastlines").setAttribute("d", stroke.join(""));
  }

  // ---------- interaction ----------

  function svgPoint(evt) {
    const pt = svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    return pt.matrixTransform(svg.getScreenCTM().inverse());
  }

  function setUp(h) {
    hooks = { ...hooks, ...h };
    svg = el("map");
    const grat = [];
    for (let lon = -540; lon <= 540; lon += 30) grat.push(`<line x1="${lon}" y1="-90" x2="${lon}" y2="90"></line>`);
    for (let lat = -60; lat <= 60; lat += 30) grat.push(`<line x1="-540" y1="${-lat}" x2="540" y2="${-lat}"></line>`);
    el("graticule").innerHTML = grat.join("");
    svg.addEventListener("wheel", (e) => {
      e.preventDefault();
      const p = svgPoint(e);
      zoomAt(e.deltaY < 0 ? 0.8 : 1.25, p.x, p.y);
    }, { passive: false });
    let drag = null;
    svg.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      const p = svgPoint(e);
      drag = { x: e.clientX, y: e.clientY, p, view: { ...view }, box: e.shiftKey, moved: false };
      svg.setPointerCapture(e.pointerId);
      e.preventDefault();
    });
    svg.addEventListener("pointermove", (e) => {
      if (!drag) return;
      if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 2) drag.moved = true;
      if (drag.box) {
        const p = svgPoint(e);
        const west = Math.min(drag.p.x, p.x), east = Math.max(drag.p.x, p.x);
        region = { minlatitude: Math.max(-90, -Math.max(drag.p.y, p.y)),
          maxlatitude: Math.min(90, -Math.min(drag.p.y, p.y)), minlongitude: west, maxlongitude: east };
        placeRegion();
        return;
      }
      svg.classList.add("dragging");
      const s = view.s;
      view = { ...drag.view, cx: drag.view.cx - (e.clientX - drag.x) * s, cy: drag.view.cy - (e.clientY - drag.y) * s };
      applyView(false);
    });
    const end = () => {
      if (!drag) return;
      const d = drag;
      drag = null;
      svg.classList.remove("dragging");
      if (d.box) {
        if (!d.moved || !region) { region = null; placeRegion(); return; }
        const r = { ...region };
        const width = r.maxlongitude - r.minlongitude;
        if (width >= 360) { delete r.minlongitude; delete r.maxlongitude; } else {
          r.minlongitude = wrap180(r.minlongitude);
          r.maxlongitude = r.minlongitude + width;
        }
        region = roundRegion(r);
        placeRegion();
        hooks.region(region);
      } else if (d.moved) {
        hooks.moved();
      } else {
        const id = hit(d.p);
        if (id !== null) hooks.select(id);
        tapped(id);
      }
    };
    // A second click (or tap) on the same marker within DOUBLE_CLICK_MS opens it: a double-click,
    // counted here because the presses are the map's own (a drag pans it), for a mouse and a finger alike.
    let lastTap = null;
    const tapped = (id) => {
      const now = performance.now();
      const again = id !== null && lastTap !== null && lastTap.id === id && now - lastTap.at < DOUBLE_CLICK_MS;
      lastTap = again || id === null ? null : { id, at: now };
      if (again) hooks.open(id);
    };
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    let hoverFrame = 0;
    svg.addEventListener("pointermove", (e) => {
      if (drag || hoverFrame) return;
      hoverFrame = requestAnimationFrame(() => {
        hoverFrame = 0;
        const id = hit(svgPoint(e));
        svg.classList.toggle("over-marker", id !== null);
        hooks.hover(id, e);
      });
    });
    svg.addEventListener("pointerleave", () => hooks.hover(null));
    el("zoom-in").onclick = () => zoomAt(0.5);
    el("zoom-out").onclick = () => zoomAt(2);
    el("zoom-reset").onclick = () => { setWhole(); applyView(true); hooks.moved(); };
    // the pane changes size with the window and with the header's wrapping: keep the centre and scale
    let seen = "";
    new ResizeObserver(() => {
      const { w, h } = size();
      if (seen !== `${w}x${h}`) { seen = `${w}x${h}`; applyView(true); }
    }).observe(svg);
    el("legend").innerHTML = "Depth"
      + DEPTH_BANDS.map(([, c, l]) => `<span class="sw" style="background:${c}"></span>${l}`).join("");
    clampView();
  }

  return { setUp, draw, show, urlValue, markers, hit, setSelected, keepClear, setRegion, viewRegion, drawCoastlines,
    bounds };
})();
