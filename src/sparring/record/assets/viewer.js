/* sparring episode viewer: draws each recorded tick from the inlined data; window.sparringViewer drives it. */
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("sparring-data").textContent);
  const n = data.ticks.length; // recorded states; data.actions holds the n - 1 moves between them
  const PHASE_COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7"];
  const SERIES_COLORS = ["#3ca0e6", "#e15759", "#59a14f", "#edc948", "#b07aa1", "#76b7b2", "#ff9da7", "#9c755f"];
  const BASE_FPS = 10;
  const $ = (id) => document.getElementById(id);
  const frame = $("frame");
  const ctx = frame.getContext("2d");
  let index = 0;
  let timer = null;
  let speed = 1;

  const phaseColor = (p) => PHASE_COLORS[p % PHASE_COLORS.length];
  const fmt = (v) => (v === null || v === undefined ? "–" : Number.isInteger(v) ? String(v) : v.toFixed(3));

  // -- the frame: shapes fitted by the union of every frame's bounds, so the view never jumps
  function shapeBounds(s) {
    if (s.type === "rect" || s.type === "bar") return [s.x, s.y, s.x + s.w, s.y + s.h];
    if (s.type === "circle") return [s.x - s.r, s.y - s.r, s.x + s.r, s.y + s.r];
    if (s.type === "line" || s.type === "arrow") {
      return [Math.min(s.x1, s.x2), Math.min(s.y1, s.y2), Math.max(s.x1, s.x2), Math.max(s.y1, s.y2)];
    }
    return [s.x, s.y, s.x, s.y]; // text: its anchor
  }

  function fitView() {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const shapes of data.frames) {
      for (const s of shapes) {
        const b = shapeBounds(s);
        x0 = Math.min(x0, b[0]); y0 = Math.min(y0, b[1]); x1 = Math.max(x1, b[2]); y1 = Math.max(y1, b[3]);
      }
    }
    if (!isFinite(x0)) { x0 = 0; y0 = 0; x1 = 1; y1 = 1; }
    const w = Math.max(x1 - x0, 1e-9), h = Math.max(y1 - y0, 1e-9), pad = 4;
    frame.height = Math.round(Math.min(560, Math.max(160, frame.width * h / w)));
    const scale = Math.min((frame.width - 2 * pad) / w, (frame.height - 2 * pad) / h);
    return { x: (x) => pad + (x - x0) * scale, y: (y) => pad + (y - y0) * scale, scale: scale };
  }
  const view = data.frames ? fitView() : null;

  function paint(s, defaultFill) {
    if (s.fill || !s.stroke) { ctx.fillStyle = s.fill || defaultFill; ctx.fill(); }
    if (s.stroke) { ctx.strokeStyle = s.stroke; ctx.stroke(); }
  }

  function drawShape(s) {
    const k = view.scale;
    ctx.lineWidth = s.width ? s.width * k : 1;
    ctx.beginPath();
    if (s.type === "rect") {
      ctx.rect(view.x(s.x), view.y(s.y), s.w * k, s.h * k);
      paint(s, "#cccccc");
    } else if (s.type === "circle") {
      ctx.arc(view.x(s.x), view.y(s.y), s.r * k, 0, 2 * Math.PI);
      paint(s, "#cccccc");
    } else if (s.type === "line") {
      ctx.moveTo(view.x(s.x1), view.y(s.y1));
      ctx.lineTo(view.x(s.x2), view.y(s.y2));
      ctx.strokeStyle = s.stroke || "#cccccc";
      ctx.stroke();
    } else if (s.type === "arrow") {
      const x1 = view.x(s.x1), y1 = view.y(s.y1), x2 = view.x(s.x2), y2 = view.y(s.y2);
      const len = Math.hypot(x2 - x1, y2 - y1), head = Math.min(len / 2, Math.max(5, 0.2 * k));
      ctx.moveTo(x1, y1);
      ctx.lineTo(x2, y2);
      ctx.strokeStyle = s.stroke || "#cccccc";
      ctx.stroke();
      if (len > 1) { // a head at (x2, y2)
        const ux = (x2 - x1) / len, uy = (y2 - y1) / len;
        ctx.beginPath();
        ctx.moveTo(x2, y2);
        ctx.lineTo(x2 - head * (ux - 0.5 * uy), y2 - head * (uy + 0.5 * ux));
        ctx.lineTo(x2 - head * (ux + 0.5 * uy), y2 - head * (uy - 0.5 * ux));
        ctx.closePath();
        ctx.fillStyle = s.stroke || "#cccccc";
        ctx.fill();
      }
    } else if (s.type === "text") {
      ctx.font = `${Math.max(8, (s.size || 0.8) * k)}px system-ui, sans-serif`;
      ctx.textBaseline = "middle";
      ctx.fillStyle = s.fill || "#e6e6e6";
      ctx.fillText(s.text, view.x(s.x), view.y(s.y));
    } else if (s.type === "bar") {
      const frac = s.max > 0 ? Math.min(1, Math.max(0, s.value / s.max)) : 0;
      ctx.fillStyle = "#333842";
      ctx.fillRect(view.x(s.x), view.y(s.y), s.w * k, s.h * k);
      ctx.fillStyle = s.fill || "#59a14f";
      ctx.fillRect(view.x(s.x), view.y(s.y), s.w * k * frac, s.h * k);
      if (s.stroke) { ctx.strokeStyle = s.stroke; ctx.strokeRect(view.x(s.x), view.y(s.y), s.w * k, s.h * k); }
      if (s.label !== undefined) {
        ctx.font = `${Math.max(8, s.h * k * 0.8)}px system-ui, sans-serif`;
        ctx.textBaseline = "middle";
        ctx.fillStyle = "#ffffff";
        ctx.fillText(`${s.label} ${fmt(s.value)}/${fmt(s.max)}`, view.x(s.x) + 3, view.y(s.y + s.h / 2));
      }
    }
  }

  function drawFrame() {
    if (data.frames) {
      ctx.clearRect(0, 0, frame.width, frame.height);
      data.frames[index].forEach(drawShape);
    } else if (data.text) {
      $("ansi").textContent = data.text[index];
    }
  }

  // -- the per-tick panel: tick and phase, each agent's move, the env's state values
  const agentRows = [];
  for (let a = 0; a < data.agents; a++) {
    const tr = $("agents").tBodies[0].insertRow();
    tr.dataset.agent = String(a);
    tr.insertCell().textContent = data.learner[a] ? String(a) : `${a} (env plays)`;
    agentRows.push({ action: tr.insertCell(), reward: tr.insertCell(), ret: tr.insertCell() });
    agentRows[a].action.className = "action";
  }
  const valueCells = data.valueNames.map((name) => {
    const tr = $("values").tBodies[0].insertRow();
    tr.insertCell().textContent = name;
    const td = tr.insertCell();
    td.dataset.field = name;
    return td;
  });

  function renderPanel() {
    $("tick-value").textContent = String(data.ticks[index]);
    $("tick-index").textContent = `(${index}/${n - 1})`;
    $("phase-name").textContent = data.phases[data.phase[index]];
    $("phase-name").style.color = phaseColor(data.phase[index]);
    const moved = index < n - 1;
    agentRows.forEach((row, a) => {
      // the env ignores the actions given for seats it plays itself: showing them would mislead
      if (!moved) row.action.textContent = "episode over";
      else if (!data.learner[a]) row.action.textContent = "(chosen by the env)";
      else row.action.textContent = data.heads.map((h, k) => `${h}=${data.actions[index][a][k]}`).join(" ");
      row.reward.textContent = moved ? fmt(data.rewards[index][a]) : "–";
      row.ret.textContent = fmt(data.returns[index][a]);
    });
    valueCells.forEach((td, k) => {
      td.textContent = fmt(data.values[index][k]);
      td.classList.toggle("changed", index > 0 && data.values[index][k] !== data.values[index - 1][k]);
    });
  }

  // -- the event log: the shapes with a `log` text (e.g. town's trades, gifts and talk), this tick's and all
  const eventColor = (i, text) => {
    const s = data.frames[i].find((shape) => shape.log === text);
    return (s && (s.stroke || s.fill)) || "#8a8f98";
  };
  const eventItems = data.events.map(([i, kind, text]) => {
    const li = document.createElement("li");
    li.dataset.index = String(i);
    li.dataset.kind = kind;
    li.style.borderLeftColor = eventColor(i, text);
    li.textContent = `tick ${data.ticks[i]}: ${text}`; // text, never markup
    li.addEventListener("click", () => { pause(); seek(i); });
    $("event-log").append(li);
    return li;
  });
  $("events").hidden = data.events.length === 0;
  $("event-count").textContent = String(data.events.length);

  function renderEvents() {
    const now = data.events.filter((e) => e[0] === index);
    $("tick-events").replaceChildren(...now.map(([i, kind, text]) => {
      const li = document.createElement("li");
      li.dataset.kind = kind;
      li.style.borderLeftColor = eventColor(i, text);
      li.textContent = text;
      return li;
    }));
    $("no-events").hidden = now.length > 0;
    let first = null;
    eventItems.forEach((li) => {
      const i = Number(li.dataset.index);
      li.classList.toggle("current", i === index);
      if (first === null && i >= index) first = li;
    });
    if (first !== null) $("event-log").scrollTop = first.offsetTop; // the log is the items' offsetParent
  }

  // -- the timeline: a strip coloured by phase, scrubbed by pointer or by the range input
  const strip = $("phases");
  function drawStrip() {
    strip.width = strip.clientWidth || 600;
    const c = strip.getContext("2d"), w = strip.width / n;
    for (let i = 0; i < n; i++) { c.fillStyle = phaseColor(data.phase[i]); c.fillRect(i * w, 0, w + 1, strip.height); }
    c.fillStyle = "#ffffff";
    c.fillRect(Math.min(strip.width - 2, index * w), 0, 2, strip.height);
  }
  function seekFromPointer(ev, el) {
    const r = el.getBoundingClientRect();
    seek(Math.floor(((ev.clientX - r.left) / r.width) * n));
  }

  // -- the chart: returns (lines) and rewards (bars) on one scale, episode metrics each on its own
  const series = [];
  for (let a = 0; a < data.agents; a++) {
    series.push({ name: `return[${a}]`, get: (i) => data.returns[i][a], top: true });
  }
  data.metrics.forEach((m, k) => series.push({ name: m, get: (i) => data.metricValues[i][k], top: false }));
  const chart = $("chart");
  function drawChart() {
    chart.width = chart.clientWidth || 600;
    const c = chart.getContext("2d"), W = chart.width, H = chart.height, split = Math.round(H * 0.6);
    const dx = n > 1 ? (W - 8) / (n - 1) : W;
    const x = (i) => (n > 1 ? i * dx + 4 : W / 2);
    c.clearRect(0, 0, W, H);
    for (let i = 0; i < n; i++) {
      c.fillStyle = phaseColor(data.phase[i]) + "22";
      const left = Math.round(x(i) - dx / 2);
      c.fillRect(left, 0, Math.round(x(i) + dx / 2) - left, H); // edge to edge: overlaps would show as lines
    }
    let lo = 0, hi = 0;
    for (let i = 0; i < n; i++) for (let a = 0; a < data.agents; a++) {
      const vals = [data.returns[i][a], i < n - 1 ? data.rewards[i][a] : 0];
      for (const v of vals) if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    }
    const yTop = (v) => 6 + (1 - (v - lo) / Math.max(hi - lo, 1e-9)) * (split - 12);
    c.strokeStyle = "#444b57"; c.beginPath(); c.moveTo(0, yTop(0)); c.lineTo(W, yTop(0)); c.stroke();
    for (let a = 0; a < data.agents; a++) {
      c.fillStyle = SERIES_COLORS[a % SERIES_COLORS.length];
      for (let i = 0; i < n - 1; i++) {
        const r = data.rewards[i][a];
        if (r) c.fillRect(x(i) - 1, Math.min(yTop(0), yTop(r)), 3, Math.abs(yTop(r) - yTop(0)));
      }
    }
    series.forEach((s, k) => {
      let mlo = Infinity, mhi = -Infinity;
      for (let i = 0; i < n && !s.top; i++) {
        const v = s.get(i);
        if (v !== null) { mlo = Math.min(mlo, v); mhi = Math.max(mhi, v); }
      }
      const y = s.top ? yTop : (v) => split + 6 + (1 - (v - mlo) / Math.max(mhi - mlo, 1e-9)) * (H - split - 12);
      c.strokeStyle = SERIES_COLORS[k % SERIES_COLORS.length];
      c.lineWidth = s.top ? 2 : 1.5;
      c.beginPath();
      for (let i = 0; i < n; i++) { const v = s.get(i); if (v !== null) (i ? c.lineTo : c.moveTo).call(c, x(i), y(v)); }
      c.stroke();
    });
    c.fillStyle = "#ffffff";
    c.fillRect(x(index) - 1, 0, 2, H);
    $("chart-legend").innerHTML = "";
    series.forEach((s, k) => {
      const span = document.createElement("span");
      span.innerHTML = `<i style="background:${SERIES_COLORS[k % SERIES_COLORS.length]}"></i>`;
      span.append(`${s.name} ${fmt(s.get(index))}`);
      $("chart-legend").append(span);
    });
  }

  // -- playback
  function render() {
    drawFrame();
    renderPanel();
    renderEvents();
    $("scrub").value = String(index);
    drawStrip();
    drawChart();
  }
  function seek(i) {
    index = Math.max(0, Math.min(n - 1, Math.round(Number(i)) || 0));
    render();
    return index;
  }
  function pause() {
    clearInterval(timer);
    timer = null;
    $("play").textContent = "▶";
  }
  function play() {
    if (timer !== null) return;
    if (index >= n - 1) seek(0);
    timer = setInterval(() => (index >= n - 1 ? pause() : seek(index + 1)), 1000 / (BASE_FPS * speed));
    $("play").textContent = "⏸";
  }

  $("title").textContent = `${data.env} · episode ${data.episode}`;
  let sub = `${data.file} · policy ${data.policy} · ${n - 1} moves`;
  if (data.forkedFrom) sub += ` · forked from episode ${data.forkedFrom.episode} at tick ${data.forkedFrom.tick}`;
  $("subtitle").textContent = sub;
  frame.hidden = !data.frames;
  $("ansi").hidden = !(!data.frames && data.text);
  $("no-picture").hidden = Boolean(data.frames || data.text);
  $("legend").innerHTML = "";
  data.phases.forEach((p, k) => {
    const span = document.createElement("span");
    span.innerHTML = `<i style="background:${phaseColor(k)}"></i>`;
    span.append(p); // phase names are text, never markup
    $("legend").append(span);
  });
  $("scrub").max = String(n - 1);
  $("scrub").addEventListener("input", (ev) => { pause(); seek(ev.target.value); });
  $("play").addEventListener("click", () => (timer === null ? play() : pause()));
  $("start").addEventListener("click", () => { pause(); seek(0); });
  $("back").addEventListener("click", () => { pause(); seek(index - 1); });
  $("forward").addEventListener("click", () => { pause(); seek(index + 1); });
  $("speed").addEventListener("change", (ev) => {
    speed = Number(ev.target.value);
    if (timer !== null) { pause(); play(); }
  });
  for (const el of [strip, chart]) {
    el.addEventListener("pointerdown", (ev) => { pause(); seekFromPointer(ev, el); });
    el.addEventListener("pointermove", (ev) => { if (ev.buttons & 1) seekFromPointer(ev, el); });
  }
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "SELECT") return;
    const keys = { " ": () => (timer === null ? play() : pause()), ArrowRight: () => { pause(); seek(index + 1); },
                   ArrowLeft: () => { pause(); seek(index - 1); }, Home: () => seek(0), End: () => seek(n - 1) };
    if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
  });
  window.addEventListener("resize", () => { drawStrip(); drawChart(); });

  /** The page's API (for people at the console and for tests). */
  window.sparringViewer = {
    data: data,
    seek: seek,
    play: play,
    pause: pause,
    get index() { return index; },
    get tick() { return data.ticks[index]; },
    get length() { return n; },
    get playing() { return timer !== null; },
    /** The shown tick: index, tick, phase name and the state values by name. */
    current() {
      const values = {};
      data.valueNames.forEach((name, k) => { values[name] = data.values[index][k]; });
      return { index: index, tick: data.ticks[index], phase: data.phases[data.phase[index]], values: values };
    },
    /** The shown tick's event log lines: [kind, text] each. */
    events() {
      return data.events.filter((e) => e[0] === index).map((e) => [e[1], e[2]]);
    },
    /** The drawn frame's [r, g, b, a] at world point (x, y) (null when the env does not draw). */
    pixel(x, y) {
      if (!view) return null;
      return Array.from(ctx.getImageData(Math.floor(view.x(x)), Math.floor(view.y(y)), 1, 1).data);
    },
  };
  seek(0);
})();
