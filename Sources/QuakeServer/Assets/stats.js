// The Statistics panel: the frequency–magnitude distribution of the page's view (/api/fmd, the
// same figures as `quakes fmd`) drawn as inline SVG — each bin's count and the cumulative count on a
// log axis, the Gutenberg–Richter line above Mc, Mc marked — its numbers as text, and the view's
// events in time as bars. It knows nothing of the list: app.js hands it the view's parameters and
// asks it to refresh when the view changes or a live update comes.
"use strict";

const QuakeStats = (() => {
  const SVG_NS = "http://www.w3.org/2000/svg";
  const el = (id) => document.getElementById(id);
  let hooks = { params: () => new URLSearchParams(), toggled() {} };
  let serial = 0;          // answers to superseded requests are dropped

  function setUp(options) {
    hooks = options;
    el("stats-toggle").onclick = () => show(el("stats").hidden, true);
    el("stats-close").onclick = () => show(false, true);
    // Escape closes the event's detail first (app.js), then this panel
    document.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && el("detail").hidden && !el("stats").hidden) show(false, true);
    });
    if (options.open) show(true, false);
  }

  const isOpen = () => !el("stats").hidden;

  function show(open, byUser) {
    el("stats").hidden = !open;
    el("stats-toggle").setAttribute("aria-pressed", String(open));
    if (byUser) hooks.toggled(open);
    if (open) refresh();
  }

  // The view's distribution, asked again; nothing while the panel is closed.
  async function refresh() {
    if (!isOpen()) return;
    const mine = ++serial;
    const params = hooks.params();
    params.delete("orderby");   // the order changes nothing here: one cached answer for every order
    const query = params.toString();
    el("stats").dataset.state = "loading";
    let answer;
    try {
      const response = await fetch("/api/fmd?" + query, { cache: "no-store" });
      answer = await response.json();
      if (!response.ok) throw new Error(answer.error || response.statusText);
    } catch (e) {
      if (mine !== serial) return;
      renderFailure(e.message);
      return;
    }
    if (mine !== serial) return;
    render(answer);
    el("stats").dataset.query = query;
    el("stats").dataset.generation = answer.generation;
    el("stats").dataset.state = "ready";
  }

  function renderFailure(message) {
    el("stats-message").hidden = false;
    el("stats-message").textContent = "Could not load: " + message;
    for (const id of ["stats-numbers", "stats-fmd", "stats-counts"]) el(id).replaceChildren();
    el("stats").dataset.state = "error";
  }

  // ---------- the numbers ----------

  const fixed = (v, digits) => (v === null ? "–" : Number(v).toFixed(digits));

  function render(fmd) {
    el("stats-title").textContent = "Statistics · " + fmd.label;
    const none = fmd.count === 0;
    el("stats-message").hidden = !none && fmd.b !== null;
    el("stats-message").textContent = none ? "No quakes in this view."
      : `No b-value: fewer than 50 quakes at or above Mc (${fmd.events_above_mc}).`;
    const rows = [
      ["stats-n", "Quakes", fmd.count, fmd.count.toLocaleString("en-US")],
      ["stats-nomag", "Without magnitude", fmd.without_magnitude, fmd.without_magnitude.toLocaleString("en-US")],
      ["stats-mc", "Mc", fmd.mc, fmd.mc === null ? "–" : String(fmd.mc)],
      ["stats-above", "Quakes ≥ Mc", fmd.events_above_mc, fmd.events_above_mc.toLocaleString("en-US")],
      ["stats-b", "b", fmd.b, fixed(fmd.b, 3)],
      ["stats-sigma", "σ(b)", fmd.b_uncertainty, fixed(fmd.b_uncertainty, 3)],
      ["stats-a", "a", fmd.a, fixed(fmd.a, 3)],
      ["stats-bin", "Bin width", fmd.bin, String(fmd.bin)],
    ];
    const list = el("stats-numbers");
    list.replaceChildren();
    for (const [id, name, value, text] of rows) {
      const dt = document.createElement("dt");
      dt.textContent = name;
      const dd = document.createElement("dd");
      dd.id = id;
      // the figure as answered, every digit, for tests and tools; the text is rounded
      dd.dataset.value = value === null ? "" : String(value);
      dd.textContent = text;
      list.append(dt, dd);
    }
    drawDistribution(fmd);
    drawCounts(fmd.counts, fmd.end);
  }

  // ---------- SVG ----------

  function node(name, attrs, text) {
    const made = document.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attrs)) made.setAttribute(key, value);
    if (text !== undefined) made.textContent = text;
    return made;
  }

  const WIDTH = 440, HEIGHT = 250, LEFT = 46, RIGHT = 10, TOP = 12, BOTTOM = 32;

  // the frame of a plot: its x and y scales, and the plot's SVG emptied
  function frame(svg, height, xMin, xMax, yMin, yMax) {
    svg.replaceChildren();
    svg.setAttribute("viewBox", `0 0 ${WIDTH} ${height}`);
    const xSpan = xMax - xMin || 1, ySpan = yMax - yMin || 1;
    return {
      x: (v) => LEFT + (v - xMin) / xSpan * (WIDTH - LEFT - RIGHT),
      y: (v) => height - BOTTOM - (v - yMin) / ySpan * (height - TOP - BOTTOM),
    };
  }

  function axes(svg, height) {
    const path = `M${LEFT},${TOP}V${height - BOTTOM}H${WIDTH - RIGHT}`;
    svg.append(node("path", { class: "stats-axis", d: path }));
  }

  function drawDistribution(fmd) {
    const svg = el("stats-fmd");
    if (!fmd.bins.length) { svg.replaceChildren(); return; }
    const half = fmd.bin / 2;
    const xMin = fmd.bins[0].magnitude - half, xMax = fmd.bins[fmd.bins.length - 1].magnitude + half;
    const top = Math.max(1, Math.ceil(Math.log10(Math.max(...fmd.bins.map((b) => b.cumulative)))));
    const scale = frame(svg, HEIGHT, xMin, xMax, 0, top);
    axes(svg, HEIGHT);
    for (let k = 0; k <= top; k++) {
      const row = scale.y(k);
      svg.append(node("line", { class: "stats-grid", x1: LEFT, x2: WIDTH - RIGHT, y1: row, y2: row }));
      svg.append(node("text", { x: LEFT - 4, y: row + 3, "text-anchor": "end" }, (10 ** k).toLocaleString("en-US")));
    }
    const step = xMax - xMin > 4 ? 1 : 0.5;
    for (let m = Math.ceil(xMin / step) * step; m <= xMax; m += step) {
      const label = String(+m.toFixed(1));
      svg.append(node("text", { x: scale.x(m), y: HEIGHT - BOTTOM + 13, "text-anchor": "middle" }, label));
    }
    const middle = (LEFT + WIDTH - RIGHT) / 2;
    svg.append(node("text", { x: middle, y: HEIGHT - 4, "text-anchor": "middle" }, "Magnitude"));
    drawGR(svg, scale, fmd, xMax, top);
    for (const bin of fmd.bins) {
      const column = scale.x(bin.magnitude);
      if (bin.count > 0) {
        svg.append(node("rect", { class: "stats-count", x: column - 3, y: scale.y(Math.log10(bin.count)) - 3,
          width: 6, height: 6, "data-magnitude": bin.magnitude, "data-count": bin.count }));
      }
      if (bin.cumulative > 0) {
        svg.append(node("circle", { class: "stats-cumulative", cx: column, cy: scale.y(Math.log10(bin.cumulative)),
          r: 3.5, "data-magnitude": bin.magnitude, "data-cumulative": bin.cumulative }));
      }
    }
    legend(svg);
  }

  // Mc as a dashed line, and log10 N = a − b·M from Mc to where N falls to 1 or the last bin
  function drawGR(svg, scale, fmd, xMax, top) {
    if (fmd.mc === null) return;
    const mcX = scale.x(fmd.mc);
    svg.append(node("line", { id: "stats-mc-line", class: "stats-mc", x1: mcX, x2: mcX, y1: TOP,
      y2: HEIGHT - BOTTOM }));
    svg.append(node("text", { x: mcX + 3, y: TOP + 9, class: "stats-mc-label" }, `Mc ${fmd.mc}`));
    if (fmd.a === null || fmd.b === null || fmd.b <= 0) return;
    const end = Math.min(xMax, fmd.a / fmd.b);
    if (end <= fmd.mc) return;
    const logN = (m) => Math.min(top, Math.max(0, fmd.a - fmd.b * m));
    svg.append(node("line", { id: "stats-gr-line", class: "stats-gr", x1: mcX, y1: scale.y(logN(fmd.mc)),
      x2: scale.x(end), y2: scale.y(logN(end)) }));
  }

  function legend(svg) {
    const left = WIDTH - RIGHT - 150, top = TOP + 6;
    svg.append(node("rect", { class: "stats-count", x: left, y: top - 3, width: 6, height: 6 }));
    svg.append(node("text", { x: left + 10, y: top + 3 }, "per bin"));
    svg.append(node("circle", { class: "stats-cumulative", cx: left + 3, cy: top + 13, r: 3.5 }));
    svg.append(node("text", { x: left + 10, y: top + 16 }, "at or above (cumulative)"));
    svg.append(node("line", { class: "stats-gr", x1: left - 2, x2: left + 8, y1: top + 26, y2: top + 26 }));
    svg.append(node("text", { x: left + 10, y: top + 29 }, "Gutenberg–Richter"));
  }

  // the events in time: one bar a bucket, its count in its title
  function drawCounts(counts, end) {
    const svg = el("stats-counts");
    const height = 130;
    const most = Math.max(1, ...counts.values);
    const scale = frame(svg, height, counts.start, end, 0, most);
    axes(svg, height);
    const when = (t) => new Date(t).toISOString().slice(0, 16).replace("T", " ");
    svg.dataset.total = counts.values.reduce((a, b) => a + b, 0);
    svg.dataset.unit = counts.unit;
    counts.values.forEach((n, k) => {
      const from = counts.start + k * counts.width, to = Math.min(end, from + counts.width);
      const bar = node("rect", { class: "stats-bar", x: scale.x(from) + 0.5, y: scale.y(n),
        width: Math.max(0.5, scale.x(to) - scale.x(from) - 1), height: scale.y(0) - scale.y(n), "data-count": n });
      bar.append(node("title", {}, `${when(from)}: ${n}`));
      svg.append(bar);
    });
    svg.append(node("text", { x: LEFT - 4, y: scale.y(most) + 3, "text-anchor": "end" }, String(most)));
    svg.append(node("text", { x: LEFT - 4, y: scale.y(0) + 3, "text-anchor": "end" }, "0"));
    svg.append(node("text", { x: LEFT, y: height - BOTTOM + 13 }, when(counts.start)));
    svg.append(node("text", { x: WIDTH - RIGHT, y: height - BOTTOM + 13, "text-anchor": "end" }, when(end)));
    const width = { "5m": "5 minutes", "1h": "hour", "6h": "6 hours", "1d": "day" }[counts.unit] || counts.unit;
    svg.append(node("text", { x: (LEFT + WIDTH - RIGHT) / 2, y: height - 4, "text-anchor": "middle" },
      `Quakes per ${width} (UTC)`));
  }

  return { setUp, refresh, isOpen };
})();
