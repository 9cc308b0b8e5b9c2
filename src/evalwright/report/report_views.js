/* The evalwright report's aggregate views (docs/report.md#aggregate-views): costs, reliability
 * over repeats, each evaluator's pass rate, the paired comparison, the cost / score / latency
 * chart, the tag filter and the sortable, filterable matrix. This file comes before report.js
 * in the page's one script (so its "use strict" holds for all of it); report.js calls
 * reportAggregateViews once with its helpers. As in report.js, data is only ever set as text
 * or attribute values, and names from the data are looked up in Maps or with Object.hasOwn.
 * Every number here was computed by the report's Python side (evalwright.report.aggregates),
 * the paired comparison by evalwright.stats.paired as `evalwright compare` prints it. */
"use strict";
function reportAggregateViews(h) {
  const { PAGE_SIZE, state, el, append, clear, marked, num, pct, signed, ms, hashOf, withParams, markShown,
    stability, haystack, compareValues, scoreColour, matrixKeys, matrixCell, pageOf, pager } = h;

  // ---- costs (docs/running.md#cost) --------------------------------------------------------
  // As the run summary shows a cost: cents above a dollar, six decimals below; "—" unknown.
  function usd(value) {
    if (value === null || value === undefined) return "—";
    return value >= 1 ? "$" + value.toFixed(2) : "$" + value.toFixed(6);
  }
  function rowCost(row) {
    if (row.cost_usd == null && row.judge_cost_usd == null) return null;
    return usd(row.cost_usd) + (row.judge_cost_usd == null ? "" : " (judge " + usd(row.judge_cost_usd) + ")");
  }
  function runCosts(runs) {
    const lines = runs.map((run) => {
      const total = run.cost_usd === null && run.judge_cost_usd === null ? null
        : (run.cost_usd || 0) + (run.judge_cost_usd || 0);
      return el("li", { "data-source": run.source, "data-value": total === null ? "" : total },
        run.source + ": " + usd(total) + " (targets " + usd(run.cost_usd) + ", judges " +
        usd(run.judge_cost_usd) + "; " + run.priced + " of " + run.rows + " rows priced)");
    });
    return el("section", { class: "costs", id: "run-costs" }, el("h2", {}, "Cost per run"), el("ul", {}, lines));
  }

  // ---- the overview's aggregate parts -------------------------------------------------------
  function renderAggregates(main) {
    const aggregates = state.data.aggregates;
    append(main, [runCosts(aggregates.runs), pairedPart(aggregates.paired), chartPart(aggregates),
      reliabilityPart(aggregates), evaluatorRates(aggregates)]);
  }

  // pass@k, pass^k and the flaky cases of each repeated column (docs/running.md#repeats-and-reliability).
  function reliabilityPart(aggregates) {
    const repeated = aggregates.columns.map((c, i) => [c, state.columns[i]]).filter(([c]) => c.repeats > 1);
    if (!repeated.length) return null;
    const ks = Array.from(new Set(repeated.flatMap(([c]) => c.pass_at.map((p) => p.k)))).sort((a, b) => a - b);
    const head = el("tr", {}, el("th", {}, "target"), el("th", {}, "repeats"),
      ks.map((k) => el("th", {}, "pass@" + k)), ks.map((k) => el("th", {}, "pass^" + k)), el("th", {}, "flaky"));
    const body = repeated.map(([c, column]) => {
      const at = new Map(c.pass_at.map((p) => [p.k, p]));
      const cell = (k, key) => el("td", { "data-k": k, "data-stat": key, "data-value": at.has(k) ? at.get(k)[key] : "" },
        at.has(k) ? num(at.get(k)[key], 3) : "—");
      return el("tr", { "data-column": column.label }, el("th", {}, column.label), el("td", {}, String(c.repeats)),
        ks.map((k) => cell(k, "at")), ks.map((k) => cell(k, "hat")),
        el("td", { "data-stat": "flaky" }, String(c.flaky.length)));
    });
    return el("section", { class: "reliability", id: "reliability" }, el("h2", {}, "Repeats"),
      el("table", { class: "overview" }, el("thead", {}, head), el("tbody", {}, body)),
      flakyList(repeated));
  }
  const FLAKY_SHOWN = 200;
  function flakyList(repeated) {
    const all = repeated.flatMap(([c, column]) => c.flaky.map((f) => [f, column.label]));
    if (!all.length) return el("p", { id: "flaky" }, "No flaky case: every case passed in all its repeats or in none.");
    const items = all.slice(0, FLAKY_SHOWN).map(([f, label]) => el("li", { "data-case": f.case, "data-target": label },
      el("a", { href: hashOf({ c: f.case, t: label, f: f.file }) }, f.case), " on " + label + ": " +
      f.passed + "/" + f.ok + " passed" + (f.runs > f.ok ? " (" + (f.runs - f.ok) + " errored)" : "")));
    const more = all.length > FLAKY_SHOWN ? el("p", {}, "… and " + (all.length - FLAKY_SHOWN) + " more") : null;
    return [el("h3", {}, "Flaky cases (" + all.length + ")"), el("ul", { id: "flaky" }, items), more];
  }

  // Each evaluator's pass rate per column: its results that scored at least the pass mark,
  // of those that ran (promptfoo's named metrics).
  function evaluatorRates(aggregates) {
    const names = new Map();
    aggregates.columns.forEach((c, i) => c.evaluators.forEach((e) => {
      if (!names.has(e.name)) names.set(e.name, new Map());
      names.get(e.name).set(i, e);
    }));
    if (!names.size) return null;
    const head = el("tr", {}, el("th", {}, "evaluator"), state.columns.map((c) => el("th", {}, c.label)));
    const body = Array.from(names.keys()).sort().map((name) => el("tr", { "data-evaluator": name },
      el("th", {}, name), state.columns.map((column, i) => {
        const e = names.get(name).get(i);
        if (!e) return el("td", { "data-column": column.label }, "");
        const errors = e.results - e.ok;
        return el("td", { "data-column": column.label, "data-value": e.pass_rate === null ? "" : e.pass_rate,
          title: e.type + ", mean score " + num(e.mean, 3) },
        pct(e.pass_rate) + " (" + e.passed + "/" + e.ok + ")" + (errors ? ", " + errors + " errored" : ""));
      })));
    return el("section", { class: "evaluator-rates" }, el("h2", {}, "Evaluators"),
      el("table", { class: "overview", id: "evaluator-rates" }, el("thead", {}, head), el("tbody", {}, body)));
  }

  // The paired comparison (docs/statistics.md#paired-comparison) of each target with its
  // baseline, and of each other column with the first one that has a score.
  function pairedPart(paired) {
    if (!paired.length) return null;
    const head = el("tr", {}, ["A", "B", "pairs (cases)", "mean B - A", "95% CI", "p", "flips to B", "MDE"]
      .map((h) => el("th", {}, h)));
    const body = paired.map((d) => el("tr", { "data-kind": d.kind, "data-a": d.a, "data-b": d.b },
      el("th", {}, d.a), el("th", {}, d.b), el("td", {}, d.pairs + " (" + d.cases + ")"),
      el("td", { "data-stat": "mean", "data-value": d.mean === null ? "" : d.mean }, signed(d.mean, 3) || "—"),
      el("td", { "data-stat": "ci", "data-low": d.low === null ? "" : d.low, "data-high": d.high === null ? "" : d.high },
        d.low === null ? "—" : signed(d.low, 3) + " to " + signed(d.high, 3)),
      el("td", { "data-stat": "p" }, num(d.p_value, 3)),
      el("td", { "data-stat": "flips" }, d.improvements + " improved, " + d.regressions + " regressed (p " +
        num(d.flips_p_value, 3) + ")"),
      el("td", { "data-stat": "mde" }, num(d.mde, 3))));
    return el("section", { class: "paired", id: "paired" }, el("h2", {}, "Paired comparison"),
      el("table", { class: "overview" }, el("thead", {}, head), el("tbody", {}, body)),
      el("ul", { class: "plain" }, paired.map((d) => el("li", { "data-b": d.b }, d.plain))));
  }

  // ---- the cost / score / latency chart: inline SVG, no library ----------------------------
  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attributes, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    for (const child of children) {
      if (child instanceof Node) node.appendChild(child);
      else if (child !== null && child !== undefined) node.appendChild(document.createTextNode(marked(String(child))));
    }
    return node;
  }
  function chartPart(aggregates) {
    const points = state.columns.map((column, i) => ({ label: column.label, stats: column.stats,
      score: aggregates.columns[i].score }));
    const scored = points.filter((p) => p.score.mean !== null);
    if (!scored.length) return null;
    return el("section", { class: "chart", id: "chart" }, el("h2", {}, "Score against cost and latency"),
      el("p", { class: "note" }, "Each target's mean score (the mean over cases, with its 95% interval) " +
        "against its mean cost per row and its latency p50."),
      el("div", { class: "charts" },
        scatter("cost", "mean cost per row (USD)", scored, (p) => p.stats.mean_cost_usd, usd),
        scatter("latency", "latency p50", scored, (p) => p.stats.latency_p50, ms)));
  }
  const W = 420, H = 260, LEFT = 48, RIGHT = 16, TOP = 12, BOTTOM = 40;
  function scatter(name, title, points, x, showX) {
    const placed = points.filter((p) => x(p) !== null && x(p) !== undefined);
    const box = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img",
      "aria-label": "score against " + title, "data-chart": name });
    if (!placed.length) {
      box.appendChild(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle", fill: "#5f6368" }, "no " + title + " known"));
      return box;
    }
    const xs = placed.map(x);
    const x0 = Math.min(0, ...xs), x1 = Math.max(...xs) * 1.1 || 1;
    const sx = (v) => LEFT + (v - x0) / (x1 - x0) * (W - LEFT - RIGHT);
    const sy = (v) => TOP + (1 - Math.max(0, Math.min(1, v))) * (H - TOP - BOTTOM);
    append(box, [axes(sx, sy, x0, x1, showX, title)]);
    placed.forEach((p, n) => {
      const cx = sx(x(p)), colour = scoreColour(n / Math.max(1, placed.length - 1) * 0.8)[0];
      const s = p.score;
      const bar = s.low === null ? null : svg("line", { x1: cx, x2: cx, y1: sy(s.high), y2: sy(s.low),
        stroke: colour, "stroke-width": 2, class: "interval" });
      box.appendChild(svg("g", { class: "point", "data-column": p.label, "data-x": x(p), "data-y": s.mean,
        "data-low": s.low === null ? "" : s.low, "data-high": s.high === null ? "" : s.high },
      svg("title", {}, p.label + ": score " + num(s.mean, 3) + (s.low === null ? "" : " (95% CI " + num(s.low, 3) +
        " to " + num(s.high, 3) + ")") + ", " + showX(x(p))),
      bar, svg("circle", { cx: cx, cy: sy(s.mean), r: 5, fill: colour }),
      svg("text", { x: cx + 8, y: sy(s.mean) - 6, "font-size": 11 }, p.label)));
    });
    return box;
  }
  function axes(sx, sy, x0, x1, showX, title) {
    const grey = "#9aa0a6";
    const y = [0, 0.25, 0.5, 0.75, 1].map((v) => [svg("line", { x1: LEFT, x2: W - RIGHT, y1: sy(v), y2: sy(v),
      stroke: "#e8eaed" }), svg("text", { x: LEFT - 6, y: sy(v) + 4, "text-anchor": "end", "font-size": 10 }, v.toFixed(2))]);
    return [y.flat(), svg("line", { x1: LEFT, x2: LEFT, y1: TOP, y2: H - BOTTOM, stroke: grey }),
      svg("line", { x1: LEFT, x2: W - RIGHT, y1: H - BOTTOM, y2: H - BOTTOM, stroke: grey }),
      svg("text", { x: LEFT, y: H - BOTTOM + 14, "font-size": 10 }, showX(x0)),
      svg("text", { x: W - RIGHT, y: H - BOTTOM + 14, "text-anchor": "end", "font-size": 10 }, showX(x1)),
      svg("text", { x: (LEFT + W - RIGHT) / 2, y: H - 6, "text-anchor": "middle", "font-size": 11 }, title),
      svg("text", { x: 12, y: TOP + (H - TOP - BOTTOM) / 2, "font-size": 11, "text-anchor": "middle",
        transform: "rotate(-90 12 " + (TOP + (H - TOP - BOTTOM) / 2) + ")" }, "mean score")];
  }

  // ---- tags ---------------------------------------------------------------------------------
  function hasTag(row, tag) {
    return (row.tags || []).includes(tag);
  }
  function tagSelect(params, update) {
    const tags = state.data.aggregates.tags;
    if (!tags.length) return null;
    const select = el("select", { id: "tag" }, el("option", { value: "" }, "any tag"),
      tags.map((t) => el("option", { value: t, selected: params.tag === t }, t)));
    select.addEventListener("change", () => { params.tag = select.value; params.p = ""; update(); });
    return select;
  }

  // ---- the matrix: sorted by case or by a column's score, filtered by text, status and tag --
  // A cell's verdicts: how many of its rows ran, passed, errored (a repeated case's repeats).
  function cellFacts(entry) {
    const group = entry.repeats && entry.repeats.length > 1 ? entry.repeats : [entry];
    const s = stability(group);
    return { runs: s.runs, ok: s.ok, passed: s.passed };
  }
  // What a cell shows, as a number to sort on: the score, or the share of repeats that
  // passed; null (last either way) for an error or a missing cell.
  function cellValue(entry) {
    if (!entry) return null;
    if (entry.repeats && entry.repeats.length > 1) {
      const f = cellFacts(entry);
      return f.ok ? f.passed / f.runs : null;
    }
    return entry.row.status === "ok" ? entry.row.score : null;
  }
  const MATRIX_STATUS = [["passed", "every cell passed"], ["failed", "some cell failed"],
    ["errored", "some cell errored"], ["flaky", "some cell flaky"]];
  const MATRIX_TESTS = new Map([
    ["passed", (facts) => facts.every((f) => f.passed === f.runs)],
    ["failed", (facts) => facts.some((f) => f.passed < f.runs)],
    ["errored", (facts) => facts.some((f) => f.ok < f.runs)],
    ["flaky", (facts) => facts.some((f) => f.passed > 0 && f.passed < f.ok)],
  ]);
  function matrixSelected(keys, params) {
    const query = (params.q || "").toLowerCase();
    const test = MATRIX_TESTS.get(params.st || "");
    return keys.filter((key) => {
      const entries = Array.from(key.cells.values());
      if (params.tag && !entries.some((e) => hasTag(e.row, params.tag))) return false;
      if (test && !test(entries.map(cellFacts))) return false;
      return !query || key.id.toLowerCase().includes(query) || key.file.toLowerCase().includes(query) ||
        entries.some((e) => (e.repeats || [e]).some((r) => haystack(r).includes(query)));
    });
  }
  // A total order: by the case (id, then file), or by a column's cell value (missing last
  // either way), rows of equal value by file then id, ascending.
  function matrixSorted(keys, params, labels) {
    const sign = params.desc === "1" ? -1 : 1;
    const tie = (a, b) => compareValues(a.file, b.file) || compareValues(a.id, b.id);
    if (params.sort === "case") {
      return keys.slice().sort((a, b) => sign * (compareValues(a.id, b.id) || compareValues(a.file, b.file)));
    }
    const at = /^col(\d+)$/.exec(params.sort || "");
    const label = at ? labels[parseInt(at[1], 10)] : undefined;
    if (label === undefined) return keys;
    const valued = keys.map((key) => [cellValue(key.cells.get(label)), key]);
    return valued.sort(([va, a], [vb, b]) => {
      if ((va === null) !== (vb === null)) return va === null ? 1 : -1;
      return (va === null ? 0 : sign * compareValues(va, vb)) || tie(a, b);
    }).map(([, key]) => key);
  }
  function renderMatrix(main, params) {
    params.v = "matrix";
    const results = el("div", { id: "matrix-results" });
    const update = () => {
      history.replaceState(null, "", hashOf(params));
      clear(results);
      matrixTable(results, params);
      markShown();
    };
    main.appendChild(matrixToolbar(params, update));
    main.appendChild(results);
    matrixTable(results, params);
  }
  function matrixToolbar(params, update) {
    const search = el("input", { type: "search", id: "matrix-search", placeholder: "search cases", value: params.q || "" });
    search.addEventListener("input", () => { params.q = search.value; params.p = ""; update(); });
    const status = el("select", { id: "matrix-status" }, el("option", { value: "" }, "any status"),
      MATRIX_STATUS.map(([name, label]) => el("option", { value: name, selected: params.st === name }, label)));
    status.addEventListener("change", () => { params.st = status.value; params.p = ""; update(); });
    return el("div", { class: "toolbar" }, search, status, tagSelect(params, update));
  }
  function matrixTable(container, params) {
    const labels = state.columns.map((c) => c.label);
    const keys = matrixSorted(matrixSelected(matrixKeys(), params), params, labels);
    const page = pageOf(params, keys.length);
    const sortLink = (name, label) => {
      const on = params.sort === name;
      const mark = on ? (params.desc === "1" ? " ▼" : " ▲") : "";
      const desc = on && params.desc !== "1" ? "1" : "";
      return el("a", { href: hashOf(withParams(params, { sort: name, desc: desc, p: "" })), "data-sort": name }, label + mark);
    };
    const rows = keys.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).map((key) =>
      el("tr", { "data-case": key.id }, el("th", { title: key.file }, key.id), labels.map((label) => matrixCell(key.cells.get(label)))));
    container.appendChild(pager(params, page, keys.length, "matrix"));
    container.appendChild(el("table", { class: "matrix", id: "matrix" },
      el("thead", {}, el("tr", {}, el("th", {}, sortLink("case", "case")), labels.map((l, i) => el("th", {}, sortLink("col" + i, l))))),
      el("tbody", {}, rows)));
  }

  return { usd, rowCost, renderAggregates, renderMatrix, tagSelect, hasTag };
}
