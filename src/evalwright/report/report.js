/* The evalwright report (docs/report.md): renders the embedded data with plain DOM calls.
 * Text from the data is only ever set as text (text nodes, textContent, attribute values),
 * never parsed as markup, so an answer holding an image tag with an onerror handler shows
 * those characters; a bidirectional control in it is shown as a marker (⟨U+202E⟩), so it
 * cannot reorder what is around it. What comes from the data or the URL is looked up in
 * Maps or with Object.hasOwn, never as a plain property, so a name such as __proto__ or
 * constructor is just a name. */
"use strict";
(function () {
  const PAGE_SIZE = 100;
  const state = { data: null, entries: [], columns: [], keys: [], list: [], listHash: "" };
  // The per-row views of report_rows.js (images, turn checks, workspace, review marks).
  const rows = reportRowViews({ el, section, facts, textBlock, num, verdictOf, data: () => state.data });
  // The aggregate views of report_views.js (costs, repeats, evaluators, paired comparison,
  // chart, tags, the sorted and filtered matrix).
  const views = reportAggregateViews({ PAGE_SIZE, state, el, append, clear, marked, num, pct, signed, ms,
    hashOf, withParams, markShown, stability, haystack, compareValues, scoreColour, matrixKeys, matrixCell,
    pageOf, pager });

  // ---- DOM helpers ------------------------------------------------------------------------
  // A row's target as its column names it: "TARGET [VARIANT]" for a prompt variant's row
  // (the report's Python side names columns the same way).
  function targetLabel(row) {
    return row.variant == null ? row.target : row.target + " [" + row.variant + "]";
  }

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else if (name === "title") node.setAttribute(name, marked(String(value)));
      else node.setAttribute(name, String(value));
    }
    append(node, children);
    return node;
  }
  function append(node, children) {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) append(node, child);
      else if (child instanceof Node) node.appendChild(child);
      else appendText(node, String(child));
    }
  }
  // The bidirectional marks, embeddings, overrides and isolates (as evalwright.errors
  // BIDI_CONTROLS): each is shown as a marker instead of taking effect.
  const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  function controlName(char) {
    return "⟨U+" + char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "⟩";
  }
  function marked(text) {
    return text.replace(BIDI, controlName);
  }
  function appendText(node, text) {
    let start = 0;
    for (const found of text.matchAll(BIDI)) {
      if (found.index > start) node.appendChild(document.createTextNode(text.slice(start, found.index)));
      const marker = document.createElement("span");
      marker.className = "control";
      marker.textContent = controlName(found[0]);
      node.appendChild(marker);
      start = found.index + 1;
    }
    if (start < text.length || start === 0) node.appendChild(document.createTextNode(text.slice(start)));
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  // ---- formatting -------------------------------------------------------------------------
  function num(value, digits) {
    return value === null || value === undefined ? "—" : Number(value).toFixed(digits);
  }
  function pct(value) {
    return value === null || value === undefined ? "—" : (value * 100).toFixed(1) + "%";
  }
  function signed(value, digits, scale) {
    if (value === null || value === undefined) return "";
    const shown = (value * (scale || 1)).toFixed(digits);
    return (value > 0 ? "+" : "") + shown;
  }
  function ms(value) {
    if (value === null || value === undefined) return "—";
    return value >= 1000 ? (value / 1000).toFixed(2) + " s" : Math.round(value) + " ms";
  }
  function pretty(value) {
    return JSON.stringify(value, null, 2);
  }
  function tokens(usage) {
    return usage ? (usage.input_tokens ?? "?") + " in / " + (usage.output_tokens ?? "?") + " out" : null;
  }

  // ---- a live conversation's and a tool loop's requests (docs/conversations.md#the-row) ----
  // A turn (and a tool loop's step) stores its requests as what each adds to the previous one
  // of its kind, naming the replies they hold by turn; rebuilt here as
  // evalwright.results.turn_requests does.
  function changed(node, at, change) {
    if (!at.length) return change(node);
    const copy = Array.isArray(node) ? node.slice() : { ...node };
    const key = at[0];
    const inner = Object.hasOwn(node, key) ? node[key] : undefined;
    // A key from the row ("__proto__" too) is an own property of the copy, never its prototype.
    Object.defineProperty(copy, key, {
      value: changed(inner, at.slice(1), change), enumerable: true, writable: true, configurable: true,
    });
    return copy;
  }
  function filled(value, texts, replies) {
    for (const text of texts) {
      const joined = text.parts.map((part) => typeof part === "string" ? part : replies[part]).join("");
      value = changed(value, text.at, () => joined);
    }
    return value;
  }
  function replyMap(row) {
    const replies = {};
    for (const turn of row.turns || []) if (turn.reply !== null) replies[turn.turn] = turn.reply;
    return replies;
  }
  // Each request whole, the last of each kind kept as the base of the next one's additions
  // (evalwright.results.turn_requests._Rebuilder).
  function requestChain(replies) {
    const last = {};
    return (kind, stored, added) => {
      if (!added) {
        if (stored) last[kind] = stored;
        return stored;
      }
      let value = last[kind];
      if (value === undefined) throw new Error("it adds to no request before it");
      for (const addition of added) {
        const more = filled(addition.value, addition.replies, replies);
        value = changed(value, addition.at, (old) => typeof old === "string" ? old + more : old.concat(more));
      }
      return (last[kind] = value);
    };
  }
  // build(row), worked out once per row and kept in cache: null when it throws (a damaged row).
  function once(cache, row, build) {
    if (!cache.has(row)) {
      let found = null;
      try { found = build(row); } catch (error) { found = null; }
      cache.set(row, found);
    }
    return cache.get(row);
  }
  // Each turn's requests whole, {raw, wire, simulator, simulator_done, steps}.
  const REQUESTS = new WeakMap();
  function turnRequests(row) {
    return once(REQUESTS, row, rebuildTurns);
  }
  function rebuildTurns(row) {
    const whole = requestChain(replyMap(row));
    return (row.turns || []).map((turn) => {
      const found = { raw: whole("raw", turn.raw_request, turn.raw_added),
        wire: whole("wire", turn.wire_request, turn.wire_added) };
      for (const key of ["simulator", "simulator_done"]) {
        const record = turn[key];
        if (record) found[key] = whole("simulator", record.wire_request, record.wire_added);
      }
      if (turn.steps && found.wire) found.steps = rebuildSteps(turn.steps, found.wire, whole);
      return found;
    });
  }
  // A tool loop's requests whole (docs/tools.md#the-row): the first is its row's or turn's
  // own, each later one what it adds to the request before it (turn_requests.full_steps).
  function rebuildSteps(steps, first, whole) {
    return steps.map((step) => step.step === 1 ? first : whole("wire", step.wire_request, step.wire_added));
  }
  const STEPS = new WeakMap();
  function stepRequests(row) {
    return once(STEPS, row, () => {
      const whole = requestChain({});
      whole("wire", row.wire_request, null);
      return rebuildSteps(row.steps, row.wire_request, whole);
    });
  }
  function judgeRequest(result, row) {
    return result.raw_named ? filled(result.raw_named.value, result.raw_named.replies, replyMap(row))
      : result.raw_request;
  }
  // What the row sent, or a conversation's last turn (its row does not hold it again).
  function lastSent(row, kind) {
    if (row[kind + "_request"] || !row.turns) return row[kind + "_request"];
    const found = (turnRequests(row) || []).filter((t) => t[kind]);
    return found.length ? found[found.length - 1][kind] : null;
  }

  // ---- loading ----------------------------------------------------------------------------
  async function loadData() {
    const wrapper = JSON.parse(document.getElementById("report-data").textContent);
    if (wrapper.json !== undefined) return wrapper.json;
    const binary = atob(wrapper.gzip);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  // The row's recorded verdict (its pass rule's); a row written before them: its score.
  function passed(row) {
    if (row.status !== "ok" || row.score === null) return false;
    return typeof row.passed === "boolean" ? row.passed : row.score >= state.data.pass_mark;
  }

  function buildEntries(data) {
    const entries = data.rows.map((row) => ({
      row: row, old: null, change: null, scoreDelta: null, passDelta: null,
      removed: false, column: data.columns[row._column].label,
    }));
    const baseline = data.baseline;
    if (baseline) {
      for (const c of baseline.changes) {
        const old = c.old === null ? null : baseline.rows[c.old];
        const entry = c.new === null
          ? { row: old, old: old, removed: true, column: targetLabel(old) }
          : entries[c.new];
        if (c.new === null) entries.push(entry);
        Object.assign(entry, {
          old: old, change: c.change, scoreDelta: c.score_delta, passDelta: c.pass_delta,
        });
      }
    }
    const seen = new Map();
    const idKey = (e) => e.row.eval_id + "\u0000" + e.column + "\u0000" + repeatOf(e.row);
    for (const entry of entries) seen.set(idKey(entry), (seen.get(idKey(entry)) || 0) + 1);
    for (const entry of entries) entry.ambiguous = seen.get(idKey(entry)) > 1;
    groupRepeats(entries);
    return entries;
  }

  // ---- repeats: the runs of one case on one column (docs/running.md#repeats-and-reliability)
  function repeatOf(row) {
    return row.repeat || 0;
  }
  function caseLabel(row) {
    const repeat = repeatOf(row);
    return repeat ? row.eval_id + " (repeat " + repeat + ")" : row.eval_id;
  }
  function groupRepeats(entries) {
    const groups = new Map();
    for (const entry of entries) {
      if (entry.removed) continue;
      const key = entry.row.eval_file + "\u0000" + entry.row.eval_id + "\u0000" + entry.column;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(entry);
      entry.repeats = groups.get(key);
    }
    for (const group of groups.values()) group.sort((a, b) => repeatOf(a.row) - repeatOf(b.row));
  }
  function stability(group) {
    const ok = group.filter((e) => e.row.status === "ok");
    return { passed: group.filter((e) => passed(e.row)).length, ok: ok.length, runs: group.length };
  }

  // ---- the URL fragment -------------------------------------------------------------------
  // The fragment's parameters (docs/report.md#permalinks); any other name is ignored.
  const PARAMS = new Set(["v", "c", "t", "r", "f", "removed", "q", "only", "col", "chg", "sort", "desc", "p",
    "tag", "st"]);
  function parseHash() {
    const params = Object.create(null);
    for (const [name, value] of new URLSearchParams(location.hash.replace(/^#/, ""))) {
      if (PARAMS.has(name)) params[name] = value;
    }
    return params;
  }
  function withParams(params, changes) {
    return Object.assign(Object.create(null), params, changes);
  }
  function hashOf(params) {
    const kept = Object.entries(params).filter(([, v]) => v !== "" && v !== undefined && v !== null);
    return "#" + new URLSearchParams(kept).toString();
  }
  function permalink(entry) {
    const params = withParams({ c: entry.row.eval_id, t: entry.column });
    if (repeatOf(entry.row)) params.r = String(repeatOf(entry.row));
    if (entry.ambiguous) params.f = entry.row.eval_file;
    if (entry.removed) params.removed = "1";
    return hashOf(params);
  }
  function findEntry(params) {
    const repeat = parseInt(params.r || "0", 10) || 0;
    return state.entries.find((e) => e.row.eval_id === params.c && e.column === params.t &&
      repeatOf(e.row) === repeat && (params.f === undefined || e.row.eval_file === params.f) &&
      e.removed === (params.removed === "1"));
  }

  // ---- navigation -------------------------------------------------------------------------
  const VIEWS = [["overview", "Overview"], ["matrix", "Matrix"], ["cases", "Cases"]];
  function renderTabs(current) {
    const nav = clear(document.getElementById("tabs"));
    for (const [name, label] of VIEWS) {
      const href = name === "cases" && state.listHash ? state.listHash : hashOf({ v: name });
      nav.appendChild(el("a", { href: href, class: name === current ? "tab current" : "tab",
        "data-view": name }, label));
    }
  }
  function route() {
    const params = parseHash();
    const main = clear(document.getElementById("view"));
    if (params.c !== undefined) {
      const entry = findEntry(params);
      renderTabs("cases");
      if (entry) renderDetail(main, entry);
      else main.appendChild(el("p", { class: "missing" }, "No row " + params.c + " on " + params.t + "."));
    } else {
      const view = params.v || "overview";
      renderTabs(view);
      if (view === "matrix") views.renderMatrix(main, params);
      else if (view === "cases") renderCases(main, params);
      else renderOverview(main);
    }
    markShown();
  }
  // Once a view is rendered: the fragment it shows, for whoever waits on it (the tests).
  function markShown() {
    document.body.setAttribute("data-shown", location.hash);
    document.body.setAttribute("data-ready", "1");
  }

  // ---- overview ---------------------------------------------------------------------------
  const STATS = [
    ["cases", "cases", (s) => String(s.cases)],
    ["mean", "mean score", (s) => num(s.mean, 3)],
    ["pass_rate", "pass rate", (s) => pct(s.pass_rate) + " (" + s.passed + ")"],
    ["errors", "errors", (s) => String(s.errors)],
    ["lossless", "lossless", (s) => s.lossless + "/" + s.cases],
    ["tokens", "tokens in/out", (s) => s.input_tokens + " / " + s.output_tokens],
    ["cost_usd", "cost", (s) => views.usd(s.cost_usd)],
    ["judge_cost_usd", "judge cost", (s) => views.usd(s.judge_cost_usd)],
    ["latency_p50", "latency p50", (s) => ms(s.latency_p50)],
    ["latency_p95", "latency p95", (s) => ms(s.latency_p95)],
    ["wall_seconds", "wall", (s) => (s.wall_seconds === null ? "—" : s.wall_seconds.toFixed(1) + " s")],
  ];
  const DELTAS = { mean: [3, 1], pass_rate: [1, 100], errors: [0, 1] };

  function renderOverview(main) {
    const data = state.data;
    main.appendChild(el("section", { class: "meta" },
      el("p", {}, "evalwright " + data.version + " · pass mark " + data.pass_mark),
      el("p", {}, "results: ", data.sources.join(", ")),
      data.baseline ? el("p", {}, "baseline: ", data.baseline.sources.join(", ")) : null));
    if (data.baseline) main.appendChild(changeCounts(data.baseline.counts));
    const head = el("tr", {}, el("th", {}, "target"), el("th", {}, "runs"),
      STATS.map(([, label]) => el("th", {}, label)));
    const body = data.columns.map((column) => overviewRow(column));
    main.appendChild(el("table", { class: "overview", id: "overview" }, el("thead", {}, head),
      el("tbody", {}, body)));
    (data.judges || []).forEach((metrics, index) => {
      if (metrics) main.appendChild(judgesPart(metrics, data.sources[index]));
    });
    views.renderAggregates(main);
  }

  // The judges' run metrics of one results file (docs/judges.md#run-metrics).
  function judgesPart(metrics, source) {
    const head = el("tr", {}, ["judge", "calls", "parse failures", "retries"].map((h) => el("th", {}, h)));
    const body = Object.entries(metrics.targets).map(([name, s]) => el("tr", { "data-judge": name },
      el("th", {}, name), el("td", {}, String(s.calls)), el("td", {}, String(s.parse_failures)),
      el("td", {}, String(s.retries))));
    const panels = metrics.panels.map((panel) => el("div", { class: "panel", "data-panel": panel.judges.join(",") },
      el("p", {}, "panel " + panel.judges.join(", ") + ": " + panel.cases + " case(s), pass/fail agreement ",
        el("span", { "data-stat": "agreement" }, num(panel.agreement, 3)), ", Krippendorff's alpha ",
        el("span", { "data-stat": "alpha" }, num(panel.alpha, 3))),
      panel.disagreements.length ? el("ul", { class: "disagreements" }, panel.disagreements.map((d) =>
        el("li", {}, d.case + " on " + d.target + ": spread " + num(d.spread, 2) + " (" +
          Object.entries(d.scores).map(([j, v]) => j + " " + num(v, 2)).join(", ") + ")"))) : null));
    return el("section", { class: "judges", id: "judges" }, el("h2", {}, "Judges · " + source),
      el("table", { class: "overview" }, el("thead", {}, head), el("tbody", {}, body)), panels);
  }

  function overviewRow(column) {
    const s = column.stats;
    const targets = state.data.baseline ? state.data.baseline.targets : null;
    const old = targets && Object.hasOwn(targets, column.target) ? targets[column.target] : undefined;
    const cells = STATS.map(([key, , show]) => {
      const value = key === "tokens" ? s.input_tokens + s.output_tokens : s[key];
      const cell = el("td", { "data-stat": key, "data-value": value === null ? "" : value }, show(s));
      if (old && DELTAS[key] && s[key] !== null && old[key] !== null) {
        const [digits, scale] = DELTAS[key];
        const delta = s[key] - old[key];
        const worse = key === "errors" ? delta > 0 : delta < 0;
        cell.appendChild(el("span", { class: "delta " + (delta === 0 ? "" : worse ? "down" : "up"),
          "data-delta": delta }, " " + (delta === 0 ? "±0" : signed(delta, digits, scale))));
      }
      return cell;
    });
    const runs = el("td", { class: "runs" }, column.run_ids.join(", "),
      el("br"), el("small", {}, (column.first || "") + " – " + (column.last || "")));
    return el("tr", { "data-column": column.label }, el("th", {}, column.label), runs, cells);
  }

  function changeCounts(counts) {
    const items = Object.entries(counts).map(([change, count]) =>
      el("a", { class: "count change-" + change, "data-change": change,
        href: hashOf({ v: "cases", chg: change }) }, change + " " + count));
    return el("p", { class: "changes", id: "change-counts" }, "against the baseline: ", items);
  }

  // ---- matrix -----------------------------------------------------------------------------
  // Viridis stops: a sequential palette readable with every common colour-vision deficiency.
  const PALETTE = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  function scoreColour(score) {
    const x = Math.max(0, Math.min(1, score)) * (PALETTE.length - 1);
    const i = Math.min(PALETTE.length - 2, Math.floor(x));
    const t = x - i;
    const rgb = PALETTE[i].map((c, k) => Math.round(c + (PALETTE[i + 1][k] - c) * t));
    const light = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 140;
    return ["rgb(" + rgb.join(",") + ")", light ? "#000" : "#fff"];
  }

  function matrixKeys() {
    const keys = new Map();
    for (const entry of state.entries) {
      if (entry.removed) continue;
      const key = entry.row.eval_file + "\u0000" + entry.row.eval_id;
      if (!keys.has(key)) keys.set(key, { file: entry.row.eval_file, id: entry.row.eval_id, cells: new Map() });
      const cells = keys.get(key).cells;
      const held = cells.get(entry.column);
      if (!held || repeatOf(entry.row) < repeatOf(held.row)) {
        cells.set(entry.column, entry);  // the first repeat stands for the cell and opens
      }
    }
    return Array.from(keys.values());
  }

  function matrixCell(entry) {
    if (!entry) return el("td", { class: "empty" });
    if (entry.repeats && entry.repeats.length > 1) return repeatsCell(entry);
    const row = entry.row;
    const text = row.status === "error" ? "error" : num(row.score, 2);
    const cell = el("td", { class: row.status === "error" ? "cell error" : "cell",
      "data-case": row.eval_id, title: row.eval_id + " on " + entry.column },
      el("a", { href: permalink(entry) }, text));
    if (row.status === "ok" && row.score !== null) {
      const [background, colour] = scoreColour(row.score);
      cell.style.background = background;
      cell.firstChild.style.color = colour;
    }
    return cell;
  }

  function repeatsCell(entry) {
    // A repeated case: how many of its repeats passed, coloured by that share.
    const s = stability(entry.repeats);
    const scores = entry.repeats.map((e) => e.row.status === "error" ? "error" : num(e.row.score, 2));
    const cell = el("td", { class: s.ok ? "cell" : "cell error", "data-case": entry.row.eval_id,
      "data-repeats": s.runs, "data-passed": s.passed,
      title: entry.row.eval_id + " on " + entry.column + ": " + scores.join(" ") },
      el("a", { href: permalink(entry) }, s.passed + "/" + s.runs));
    if (s.ok) {
      const [background, colour] = scoreColour(s.passed / s.runs);
      cell.style.background = background;
      cell.firstChild.style.color = colour;
    }
    return cell;
  }

  function pageOf(params, count) {
    const last = Math.max(0, Math.ceil(count / PAGE_SIZE) - 1);
    return Math.min(last, Math.max(0, parseInt(params.p || "0", 10) || 0));
  }
  function pager(params, page, count, view) {
    const last = Math.max(0, Math.ceil(count / PAGE_SIZE) - 1);
    const go = (p) => hashOf(withParams(params, { v: view, p: p ? String(p) : "" }));
    const first = count ? page * PAGE_SIZE + 1 : 0;
    return el("p", { class: "pager" },
      page > 0 ? el("a", { href: go(page - 1), class: "prev" }, "‹ previous") : null,
      el("span", { class: "range" }, " " + first + "–" + Math.min(count, (page + 1) * PAGE_SIZE) +
        " of " + count + " "),
      page < last ? el("a", { href: go(page + 1), class: "next" }, "next ›") : null);
  }

  // ---- case list --------------------------------------------------------------------------
  const FILTERS = [["failed", "failed"], ["errored", "errored"], ["lossy", "lossy delivery"]];
  const TESTS = new Map([
    ["failed", (e) => !e.removed && !passed(e.row)],
    ["errored", (e) => e.row.status === "error"],
    ["lossy", (e) => (e.row.delivery_notes || []).length > 0],
    ["changed", (e) => e.change !== null && e.change !== "unchanged"],
  ]);

  function haystack(entry) {
    if (entry.haystack === undefined) {
      const row = entry.row;
      const raw = lastSent(row, "raw");
      const question = raw ? raw.question : "";
      const chat = raw && raw.chat_prompt ? raw.chat_prompt.map((m) => m.content).join("\n") : "";
      entry.haystack = [row.eval_id, row.eval_file, row.target, question, chat,
        row.candidate_answer || "", row.metadata ? JSON.stringify(row.metadata) : ""]
        .join("\n").toLowerCase();
    }
    return entry.haystack;
  }

  function selected(params) {
    const only = (params.only || "").split(",").filter((name) => TESTS.has(name)).map((name) => TESTS.get(name));
    const query = (params.q || "").toLowerCase();
    const found = state.entries.filter((e) =>
      only.every((test) => test(e)) &&
      (!params.col || e.column === params.col) &&
      (!params.chg || e.change === params.chg) &&
      (!params.tag || views.hasTag(e.row, params.tag)) &&
      (!query || haystack(e).includes(query)));
    return sortEntries(found, params.sort || "", params.desc === "1");
  }

  const COLUMNS = [
    ["eval_id", "case", (e) => e.row.eval_id],
    ["eval_file", "file", (e) => e.row.eval_file],
    ["target", "target", (e) => e.column],
    ["status", "status", (e) => (e.removed ? "removed" : e.row.status)],
    ["score", "score", (e) => e.row.score],
    ["latency", "latency", (e) => e.row.latency_ms],
    ["cost", "cost", (e) => e.row.cost_usd],
    ["notes", "notes", (e) => (e.row.delivery_notes || []).length],
  ];
  const CHANGE_COLUMNS = [
    ["change", "change", (e) => e.change],
    ["delta", "Δ score", (e) => e.scoreDelta],
  ];
  function listColumns() {
    return state.data.baseline ? COLUMNS.concat(CHANGE_COLUMNS) : COLUMNS;
  }

  // A total order: by the column (a missing value last either way), then rows of equal
  // value by file, case, target, repeat and removed-or-not, always ascending, so a sorted
  // list comes out the same whatever order the results file holds its rows in.
  function tieKey(e) {
    return [e.row.eval_file, e.row.eval_id, e.column, repeatOf(e.row), e.removed ? 1 : 0];
  }
  function compareValues(a, b) {
    return a === b ? 0 : a < b ? -1 : 1;
  }
  function sortEntries(entries, key, desc) {
    const column = listColumns().find(([name]) => name === key);
    if (!column) return entries;
    const value = column[2];
    const sign = desc ? -1 : 1;
    return entries.map((e) => [value(e), tieKey(e), e]).sort((a, b) => {
      const aMissing = a[0] === null || a[0] === undefined;
      const bMissing = b[0] === null || b[0] === undefined;
      if (aMissing !== bMissing) return aMissing ? 1 : -1;
      const order = aMissing ? 0 : compareValues(a[0], b[0]) * sign;
      if (order) return order;
      for (let k = 0; k < a[1].length; k++) {
        const tie = compareValues(a[1][k], b[1][k]);
        if (tie) return tie;
      }
      return 0;
    }).map((t) => t[2]);
  }

  function setParams(params) {
    history.replaceState(null, "", hashOf(params));
    state.listHash = hashOf(params);
  }

  function renderCases(main, params) {
    params.v = "cases";
    state.listHash = hashOf(params);
    const results = el("div", { id: "case-results" });
    const update = () => {
      setParams(params);
      clear(results);
      renderCaseTable(results, params);
      markShown();
    };
    main.appendChild(caseToolbar(params, update));
    main.appendChild(results);
    renderCaseTable(results, params);
  }

  function caseToolbar(params, update) {
    const search = el("input", { type: "search", id: "search", placeholder: "search ids, questions, answers, metadata",
      value: params.q || "" });
    search.addEventListener("input", () => { params.q = search.value; params.p = ""; update(); });
    const boxes = FILTERS.concat(state.data.baseline ? [["changed", "changed only"]] : []).map(([name, label]) => {
      const only = (params.only || "").split(",").filter(Boolean);
      const box = el("input", { type: "checkbox", id: "only-" + name, checked: only.includes(name) });
      box.addEventListener("change", () => {
        const now = (params.only || "").split(",").filter((n) => n && n !== name);
        if (box.checked) now.push(name);
        params.only = now.join(","); params.p = ""; update();
      });
      return el("label", {}, box, " " + label);
    });
    const select = el("select", { id: "column" }, el("option", { value: "" }, "every target"),
      state.columns.map((c) => el("option", { value: c.label, selected: params.col === c.label }, c.label)));
    select.addEventListener("change", () => { params.col = select.value; params.p = ""; update(); });
    const change = state.data.baseline ? changeSelect(params, update) : null;
    return el("div", { class: "toolbar" }, search, boxes, select, change, views.tagSelect(params, update));
  }

  function changeSelect(params, update) {
    const select = el("select", { id: "change" }, el("option", { value: "" }, "any change"),
      Object.keys(state.data.baseline.counts).map((c) =>
        el("option", { value: c, selected: params.chg === c }, c)));
    select.addEventListener("change", () => { params.chg = select.value; params.p = ""; update(); });
    return select;
  }

  function renderCaseTable(container, params) {
    const found = selected(params);
    state.list = found;
    const page = pageOf(params, found.length);
    container.appendChild(pager(params, page, found.length, "cases"));
    const head = listColumns().map(([name, label]) => {
      const desc = params.sort === name && params.desc !== "1";
      const mark = params.sort === name ? (params.desc === "1" ? " ▼" : " ▲") : "";
      return el("th", {}, el("a", { href: hashOf(withParams(params, { sort: name, desc: desc ? "1" : "", p: "" })),
        "data-sort": name }, label + mark));
    });
    const body = found.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).map(caseRow);
    container.appendChild(el("table", { class: "cases", id: "cases" },
      el("thead", {}, el("tr", {}, head)), el("tbody", {}, body)));
  }

  function caseRow(entry) {
    const row = entry.row;
    const status = entry.removed ? "removed" : row.status === "error" ? "error" : passed(row) ? "pass" : "fail";
    const cells = [
      el("td", {}, el("a", { href: permalink(entry), class: "open" }, caseLabel(row))),
      el("td", {}, row.eval_file), el("td", {}, entry.column),
      el("td", { class: "status " + status }, status),
      el("td", { class: "num" }, num(row.score, 3)), el("td", { class: "num" }, ms(row.latency_ms)),
      el("td", { class: "num", "data-stat": "cost" }, views.usd(row.cost_usd)),
      el("td", { class: "num" }, (row.delivery_notes || []).length || ""),
    ];
    if (state.data.baseline) {
      cells.push(el("td", { class: "change change-" + (entry.change || "none") }, entry.change || ""));
      cells.push(el("td", { class: "num" }, signed(entry.scoreDelta, 3)));
    }
    return el("tr", { "data-case": row.eval_id, "data-target": entry.column, "data-status": status,
      "data-repeat": repeatOf(row) }, cells);
  }

  // ---- case detail ------------------------------------------------------------------------
  function section(title, ...children) {
    return el("section", { class: "part", "data-part": title }, el("h3", {}, title), children);
  }
  function collapsible(summary, open, ...children) {
    return el("details", { open: open }, el("summary", {}, summary), children);
  }
  // A folded part whose content is made when first opened: a long conversation's requests
  // are large, and most are never looked at.
  function folded(summary, build) {
    const node = el("details", {}, el("summary", {}, summary));
    node.addEventListener("toggle", () => {
      if (node.open && node.childNodes.length === 1) append(node, [build()]);
    });
    return node;
  }
  function facts(pairs) {
    return el("dl", { class: "facts" }, pairs.filter((p) => p[1] !== null && p[1] !== undefined && p[1] !== "")
      .map(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
  }
  function textBlock(text, cls) {
    return el("pre", { class: "text " + (cls || "") }, text === null || text === undefined ? "—" : text);
  }

  function renderDetail(main, entry) {
    const row = entry.row;
    const back = state.listHash || hashOf({ v: "cases" });
    main.appendChild(el("p", { class: "crumbs" }, el("a", { href: back, id: "back" }, "‹ cases"), " · ",
      el("a", { href: permalink(entry), id: "permalink" }, "permalink")));
    main.appendChild(el("h2", { id: "detail-title", "data-case": row.eval_id, "data-target": entry.column,
      "data-repeat": repeatOf(row) }, caseLabel(row), el("small", {}, " on " + entry.column)));
    append(main, [summaryPart(entry), rows.reviewPart(entry), repeatsPart(entry), errorPart(row), conversationPart(row),
      wirePart(row), toolsPart(row), answerPart(entry), expectedPart(row), evaluatorsPart(row), turnsPart(row),
      rows.workspacePart(row), tracePart(row), metadataPart(row)]);
  }

  function summaryPart(entry) {
    const row = entry.row;
    const usage = tokens(row.usage);
    const change = entry.change ? entry.change + (entry.scoreDelta === null ? "" : " (score " +
      signed(entry.scoreDelta, 3) + ")") + (entry.passDelta ? " (pass " + signed(entry.passDelta, 0) + ")" : "") : null;
    return section("summary", facts([
      ["eval file", row.eval_file], ["tags", (row.tags || []).join(", ")],
      ["status", entry.removed ? "removed (baseline row)" : row.status],
      ["score", num(row.score, 3)], ["passed", entry.removed ? null : passed(row) ? "yes" : "no"],
      ["change", change], ["baseline score", entry.old && !entry.removed ? num(entry.old.score, 3) : null],
      ["provider", row.provider], ["finish reason", row.finish_reason], ["latency", ms(row.latency_ms)],
      ["attempts", row.attempts], ["cache", row.cache], ["tokens", usage], ["cost", views.rowCost(row)], ["run", row.run_id],
      ["time", row.timestamp], ["dataset", row.dataset], ["conversation", row.conversation_id],
    ]));
  }

  function repeatsPart(entry) {
    // How stable the case is over its repeats: passes, and each repeat's score (a link).
    const group = entry.repeats;
    if (!group || group.length < 2) return null;
    const s = stability(group);
    const items = group.map((e) => {
      const score = e.row.status === "error" ? "error" : num(e.row.score, 3);
      const verdict = e.row.status === "error" ? "error" : passed(e.row) ? "pass" : "fail";
      const text = "#" + repeatOf(e.row) + " " + score;
      return el("li", { "data-repeat": repeatOf(e.row), "data-status": verdict,
        class: e === entry ? "current status " + verdict : "status " + verdict },
        e === entry ? text : el("a", { href: permalink(e) }, text));
    });
    return section("repeats", el("p", { id: "repeat-stability" },
      s.passed + "/" + s.runs + " passed" + (s.ok < s.runs ? " (" + (s.runs - s.ok) + " errored)" : "")),
      el("ol", { class: "repeats" }, items));
  }

  function errorPart(row) {
    if (!row.error) return null;
    return section("error", facts([["type", row.error.type], ["attempts", row.attempts],
      ["latency", ms(row.latency_ms)]]), textBlock(row.error.message, "error"));
  }

  function conversationPart(row) {
    const raw = lastSent(row, "raw");
    if (!raw) return section("conversation", el("p", {}, "No request was recorded."));
    const messages = raw.chat_prompt || [{ role: "user", content: raw.question }];
    const bubbles = messages.map((m) => el("div", { class: "bubble role-" + m.role },
      el("div", { class: "role" }, m.role + (m.name ? " · " + m.name : "") + (m.tool_call_id ? " · " + m.tool_call_id : "")),
      el("div", { class: "content" }, m.content), rows.mediaList(m.media),
      (m.tool_calls || []).map((call) => collapsible("tool call " + call.name, false, textBlock(pretty(call.arguments))))));
    return section("conversation", el("div", { class: "chat" }, bubbles),
      raw.guidelines ? collapsible("guidelines (" + raw.guideline_paths.join(", ") + ")", false, textBlock(raw.guidelines)) : null,
      raw.input_files.length ? collapsible("attached files (" + raw.input_files.length + ")", false,
        el("ul", {}, raw.input_files.map((f) => el("li", {}, f)))) : null);
  }

  function wirePart(row) {
    const notes = row.delivery_notes || [];
    const noteList = notes.length ? notesList(notes) : el("p", { class: "lossless" }, "lossless: delivered exactly as written");
    const wire = lastSent(row, "wire");
    const whose = row.turns ? ", the last turn's" : row.steps ? ", step 1's" : "";
    const request = wire ? folded("wire request (" + (wire.api || wire.kind || "request") + ")" + whose,
      () => textBlock(pretty(wire), "json"))
      : el("p", {}, "No wire request recorded.");
    return section("as sent", el("div", { class: "wire" }, request, el("aside", {}, el("h4", {}, "delivery notes"), noteList)));
  }

  function notesList(notes) {
    return el("ul", { class: "notes" }, notes.map((n) => el("li", {}, el("b", {}, n.rule), ": " + n.detail)));
  }

  // An answer's reasoning (docs/running.md#reasoning), folded: kept apart from the answer,
  // shown when opened; a redacted part (Anthropic's encrypted thinking) as [redacted].
  function reasoningFold(parts) {
    if (!parts || !parts.length) return null;
    const texts = parts.map((p) => (p.data !== undefined && p.data !== null ? "[redacted]" : p.text));
    return el("div", { class: "reasoning-part" },
      folded("reasoning (" + parts.length + " part" + (parts.length === 1 ? "" : "s") + ")",
        () => textBlock(texts.join("\n\n"), "thinking")));
  }

  function answerPart(entry) {
    const row = entry.row;
    const parts = [reasoningFold(row.answer_reasoning), textBlock(row.candidate_answer, "answer")];
    if (entry.old && !entry.removed && entry.old.candidate_answer !== row.candidate_answer) {
      parts.push(collapsible("changes against the baseline answer", true,
        wordDiff(entry.old.candidate_answer || "", row.candidate_answer || "")));
    }
    return section("answer", parts);
  }

  function expectedPart(row) {
    return section("expected", el("h4", {}, "expected outcome"), textBlock(row.expected_outcome),
      row.reference_answer ? [el("h4", {}, "reference answer"), textBlock(row.reference_answer)] : null);
  }

  function evaluatorsPart(row) {
    const results = row.evaluator_results || [];
    if (!results.length) return section("evaluators", facts([["hits", (row.hits || []).join("; ")],
      ["misses", (row.misses || []).join("; ")]]), row.reasoning ? textBlock(row.reasoning) : null);
    return section("evaluators", results.map((r) => evaluatorPart(r, row)));
  }
  function evaluatorPart(r, row) {
    return el("div", { class: "evaluator" },
      el("h4", {}, r.name + " (" + r.type + ", weight " + r.weight + "): " + (r.status === "ok" ? num(r.score, 3) : "error")),
      r.hits.length ? el("ul", { class: "hits" }, r.hits.map((h) => el("li", {}, h))) : null,
      r.misses.length ? el("ul", { class: "misses" }, r.misses.map((m) => el("li", {}, m))) : null,
      r.reasoning ? textBlock(r.reasoning, "reasoning") : null,
      r.raw_request || r.raw_named ? folded("the evaluator's request", () => requestBlock(() => judgeRequest(r, row))) : null);
  }
  function requestBlock(rebuild) {
    try {
      return textBlock(pretty(rebuild()), "json");
    } catch (error) {
      return el("p", { class: "error" }, "This request cannot be rebuilt from the row: " + error.message);
    }
  }

  // A live conversation's turns: each reply, its evaluators and each request it sent.
  function turnsPart(row) {
    if (!row.turns) return null;
    const requests = turnRequests(row);
    const sent = (index, key) => () => {
      if (!requests) throw new Error("the row's turns do not add up");
      return requests[index][key];
    };
    const looped = row.turns.map((turn) => Boolean(turn.steps)).lastIndexOf(true);
    return section("turns", row.turns.map((turn, index) => el("div", { class: "turn", "data-turn": turn.turn },
      el("h4", {}, "turn " + turn.turn + (turn.score === null ? "" : ": " + num(turn.score, 3))),
      rows.turnChecks(turn),
      reasoningFold(turn.reasoning),
      turn.reply === null ? el("p", {}, "No reply.") : textBlock(turn.reply, "answer"),
      turn.steps ? stepsList(turn.steps, requests && requests[index].steps, stoppedAt(row) && !row.steps && index === looped)
        : turn.tool_calls ? callsAndResults(turn.tool_calls, [], null) : null,
      checksPart(turn.evaluator_results),
      turn.evaluator_results.map((r) => evaluatorPart(r, row)),
      turn.wire_request || turn.wire_added ? folded("request sent", () => requestBlock(sent(index, "wire"))) : null,
      ["simulator", "simulator_done"].filter((key) => turn[key] && (turn[key].wire_request || turn[key].wire_added))
        .map((key) => folded(key === "simulator" ? "the simulated user's request" : "the simulated user's last request (done)",
          () => requestBlock(sent(index, key)))))));
  }

  // ---- tool calls and the tool loop (docs/tools.md#the-row) ------------------------------
  // A row's calls, or each step of its tool loop with its calls, their results and its own
  // request; and the evaluators that scored the calls (state.data.tool_checks), pass or fail.
  function toolsPart(row) {
    const checks = checksPart(row.evaluator_results);
    if (row.steps) {
      const stopped = stoppedAt(row);
      return section("steps", checks, stopped ? el("p", { class: "status error max-steps" },
        "stopped at max_steps: the model still called tools, and its last calls were not answered") : null,
      stepsList(row.steps, stepRequests(row), stopped));
    }
    if (row.tool_calls) return section("tool calls", checks, callsAndResults(row.tool_calls, [], null));
    if (!checks) return null;
    return section("tool calls", checks, el("p", {}, row.turns ? "Each turn's calls are shown with its turn." : "No tool calls."));
  }
  function stoppedAt(row) {
    return Boolean(row.error && row.error.type === "max_steps");
  }
  function isToolCheck(result) {
    return state.data.tool_checks.includes(result.type);
  }
  function verdictOf(result) {
    if (result.status !== "ok" || result.score === null) return "error";
    if (typeof result.passed === "boolean") return result.passed ? "pass" : "fail";
    return result.score >= state.data.pass_mark ? "pass" : "fail";
  }
  function checksPart(results) {
    const checks = (results || []).filter(isToolCheck);
    if (!checks.length) return null;
    return el("div", { class: "checks" }, el("h4", {}, "trajectory checks"), el("ul", { class: "checks" },
      checks.map((r) => {
        const verdict = verdictOf(r);
        return el("li", { "data-check": r.name, "data-status": verdict }, el("span", { class: "status " + verdict }, verdict),
          " " + r.name + " (" + r.type + (verdict === "error" ? ")" : ") " + num(r.score, 3)) + (r.reasoning ? ": " + r.reasoning : ""));
      })));
  }
  function stepsList(steps, requests, stopped) {
    const sent = (index) => () => {
      if (!requests) throw new Error("the steps' requests do not add up");
      return requests[index];
    };
    return el("div", { class: "steps" }, steps.map((step, index) =>
      stepPart(step, sent(index), stopped && index === steps.length - 1)));
  }
  function stepPart(step, request, stopped) {
    const meta = ["finish " + (step.finish_reason ?? "—"), ms(step.latency_ms), tokens(step.usage), "cache " + step.cache,
      step.attempts > 1 ? step.attempts + " attempts" : null];
    const notes = step.delivery_notes || [];
    return el("div", { class: stopped ? "step max-steps" : "step", "data-step": step.step },
      el("h4", {}, "step " + step.step), el("p", { class: "step-meta" }, meta.filter(Boolean).join(" · ")),
      reasoningFold(step.reasoning),
      step.reply ? textBlock(step.reply, "reply") : null,
      notes.length ? notesList(notes) : null,
      callsAndResults(step.tool_calls || [], step.tool_results || [], stopped ? "not answered: max_steps" : "not answered"),
      folded("request sent", () => requestBlock(request)));
  }
  // Each call with the result it got (results come in the calls' order, paired by id), then
  // any result no call asked for: shown rather than lost. ``missing``: what a call without a
  // result says (null: calls that were never to be answered).
  function callsAndResults(calls, results, missing) {
    const left = results.slice();
    const shown = calls.map((call) => {
      const at = left.findIndex((r) => r !== null && r.tool_call_id === call.id);
      const result = at < 0 ? null : left[at];
      if (at >= 0) left[at] = null;
      return callPart(call, result, missing);
    });
    return shown.concat(left.filter((r) => r !== null).map(resultPart));
  }
  function callPart(call, result, missing) {
    return el("div", { class: "call", "data-call": call.id, "data-tool": call.name },
      el("div", { class: "call-head" }, "call ", el("b", {}, call.name), el("small", {}, " · id " + call.id)),
      argumentsBlock(call),
      result ? resultPart(result) : missing ? el("p", { class: "status error unanswered" }, missing) : null);
  }
  function argumentsBlock(call) {
    if (call.arguments !== null) return textBlock(pretty(call.arguments), "json arguments");
    const raw = typeof call.raw_arguments === "string" ? call.raw_arguments : pretty(call.raw_arguments);
    return [el("p", { class: "status error" }, "arguments that are no JSON object, as the API wrote them:"),
      textBlock(raw, "arguments")];
  }
  function resultPart(result) {
    const kind = result.is_error ? "error" : "result";
    return el("div", { class: "result " + kind, "data-result": result.tool_call_id, "data-kind": kind },
      el("div", { class: "result-head" }, (result.is_error ? "error result" : "result") + " of " + result.name +
        " · source " + result.source + " · " + ms(result.latency_ms)),
      textBlock(result.content, result.is_error ? "error" : "tool-result"));
  }

  function tracePart(row) {
    if (!row.trace || !row.trace.length) return null;
    return section("trace", el("ol", { class: "trace" }, row.trace.map((t) => el("li", { class: "trace-" + t.type },
      el("b", {}, t.type), t.command !== undefined ? el("code", {}, " " + t.command) : null,
      t.exit_code !== undefined && t.exit_code !== null ? " → exit " + t.exit_code : null,
      t.text ? textBlock(t.text) : null))));
  }

  function metadataPart(row) {
    if (!row.metadata) return null;
    return section("metadata", textBlock(pretty(row.metadata), "json"));
  }

  // ---- word diff --------------------------------------------------------------------------
  const DIFF_CELLS = 4000000;
  function wordDiff(before, after) {
    const a = before.split(/(\s+)/), b = after.split(/(\s+)/);
    let start = 0;
    while (start < a.length && start < b.length && a[start] === b[start]) start++;
    let endA = a.length, endB = b.length;
    while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) { endA--; endB--; }
    const ops = [[" ", a.slice(0, start)]].concat(coalesce(middleDiff(a.slice(start, endA), b.slice(start, endB))),
      [[" ", a.slice(endA)]]);
    return el("pre", { class: "text diff" }, ops.filter(([, words]) => words.length).map(([op, words]) =>
      op === " " ? words.join("") : el(op === "-" ? "del" : "ins", {}, words.join(""))));
  }
  // One deletion and one insertion per changed stretch: the spaces the two texts happen to
  // share inside it would otherwise cut it into single words.
  function coalesce(ops) {
    const out = [];
    let del = [], ins = [];
    const flush = () => {
      if (del.length) out.push(["-", del]);
      if (ins.length) out.push(["+", ins]);
      del = []; ins = [];
    };
    ops.forEach(([op, words], k) => {
      const inside = k > 0 && k < ops.length - 1 && words.join("").trim() === "";
      if (op === " " && !inside) { flush(); out.push([op, words]); }
      else if (op === " ") { del = del.concat(words); ins = ins.concat(words); }
      else if (op === "-") del = del.concat(words);
      else ins = ins.concat(words);
    });
    flush();
    return out;
  }
  function middleDiff(a, b) {
    if (a.length * b.length > DIFF_CELLS) return [["-", a], ["+", b]];
    // Longest common subsequence, read back from the end.
    const width = b.length + 1;
    const lengths = new Uint32Array((a.length + 1) * width);
    for (let i = a.length - 1; i >= 0; i--) {
      for (let j = b.length - 1; j >= 0; j--) {
        lengths[i * width + j] = a[i] === b[j] ? lengths[(i + 1) * width + j + 1] + 1
          : Math.max(lengths[(i + 1) * width + j], lengths[i * width + j + 1]);
      }
    }
    const ops = [];
    const push = (op, word) => {
      const last = ops[ops.length - 1];
      if (last && last[0] === op) last[1].push(word); else ops.push([op, [word]]);
    };
    let i = 0, j = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) { push(" ", a[i]); i++; j++; }
      else if (lengths[(i + 1) * width + j] >= lengths[i * width + j + 1]) push("-", a[i++]);
      else push("+", b[j++]);
    }
    while (i < a.length) push("-", a[i++]);
    while (j < b.length) push("+", b[j++]);
    return ops;
  }

  // ---- start ------------------------------------------------------------------------------
  async function start() {
    try {
      state.data = await loadData();
    } catch (error) {
      clear(document.getElementById("view")).appendChild(el("p", { class: "error" }, "The report's data could not be read: " + error));
      return;
    }
    state.columns = state.data.columns;
    state.entries = buildEntries(state.data);
    window.addEventListener("hashchange", route);
    route();
  }
  start();
})();
