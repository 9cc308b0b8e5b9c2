/* The evalwright report's per-row views (docs/report.md#what-the-report-holds): a prompt's
 * images, a turn's checks, an agent's workspace change and the reviewer's marks. This file
 * comes first in the page's one script (so its "use strict" holds for the whole script);
 * report.js calls reportRowViews once with its DOM helpers. As in report.js, text from the data is only ever
 * set as text, and names from the data are looked up in Maps or with Object.hasOwn. */
"use strict";
function reportRowViews(h) {
  const { el, section, facts, textBlock, num, verdictOf, data } = h;

  // ---- images (docs/report.md#images) -------------------------------------------------------
  // Only what the report's own Python embedded, and only these types, ever becomes an image.
  const IMAGE_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/;
  function embedded(record) {
    const images = data().images || {};
    const found = typeof record.sha256 === "string" && Object.hasOwn(images, record.sha256)
      ? images[record.sha256] : null;
    return found || { why: "not looked for (a baseline row)" };
  }
  function bytes(size) {
    return size === undefined || size === null ? "? bytes" : size + " bytes";
  }
  // What stands for a media part that is not shown: its type, path, media type, size, hash.
  function mediaMarker(record, why) {
    const text = record.url !== undefined
      ? record.type + " from " + record.url + " (fetched by the API, never by the report)"
      : record.type + " " + record.path + " · " + (record.media_type || "?") + " · " + bytes(record.size) +
        " · sha256 " + record.sha256;
    return el("div", { class: "media-marker", "data-media": record.path || record.url },
      el("code", {}, text), why ? el("small", {}, " (" + why + ")") : null);
  }
  function mediaPart(record) {
    if (record.type !== "image" || record.url !== undefined) return mediaMarker(record, null);
    const found = embedded(record);
    if (typeof found.url !== "string" || !IMAGE_URL.test(found.url)) {
      return mediaMarker(record, "not shown: " + (found.why || "no image"));
    }
    return el("figure", { class: "thumbnail", "data-media": record.path },
      el("img", { src: found.url, alt: record.path, "data-sha256": record.sha256 }),
      el("figcaption", {}, record.path + " · " + record.media_type + " · " + bytes(record.size)));
  }
  function mediaList(media) {
    if (!Array.isArray(media) || !media.length) return null;
    return el("div", { class: "media" }, media.map(mediaPart));
  }

  // ---- a live conversation's turn: each evaluator's score and verdict ------------------------
  function turnChecks(turn) {
    const results = turn.evaluator_results || [];
    if (!results.length) return null;
    return el("ul", { class: "turn-checks" }, results.map((r) => {
      const verdict = verdictOf(r);
      return el("li", { "data-evaluator": r.name, "data-status": verdict },
        el("span", { class: "status " + verdict }, verdict),
        " " + r.name + " (" + r.type + ")" + (verdict === "error" ? "" : ": " + num(r.score, 3)));
    }));
  }

  // ---- an agent's workspace change (docs/agents.md#the-change) -------------------------------
  function diffLine(line) {
    const kind = /^(\+\+\+|---|diff |index |new file|deleted file|similarity|rename |Binary )/.test(line) ? "meta"
      : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "context";
    return el("span", { class: "diff-" + kind }, line + "\n");
  }
  function filesTable(files) {
    if (files === null) return el("p", {}, "The agent never ran: no change was recorded.");
    if (!files.length) return el("p", { class: "no-change" }, "The agent changed no file.");
    return el("table", { class: "workspace-files" }, el("tbody", {}, files.map((f) =>
      el("tr", { "data-file": f.path }, el("td", {}, f.path),
        f.added === null ? el("td", { colspan: 2 }, "binary")
          : [el("td", { class: "diff-add num" }, "+" + f.added), el("td", { class: "diff-del num" }, "-" + f.removed)]))));
  }
  function workspacePart(row) {
    const ws = row.workspace;
    if (!ws) return null;
    const added = (ws.files || []).reduce((sum, f) => sum + (f.added || 0), 0);
    const removed = (ws.files || []).reduce((sum, f) => sum + (f.removed || 0), 0);
    return section("workspace", facts([["path", ws.path], ["kept", ws.kept ? "yes" : "no (removed after the case)"],
      ["change", ws.files ? ws.files.length + " file(s) changed, +" + added + " -" + removed : null]]),
    filesTable(ws.files),
    ws.diff ? el("details", { open: true }, el("summary", {}, "diff"),
      el("pre", { class: "text workspace-diff" }, ws.diff.replace(/\n$/, "").split("\n").map(diffLine))) : null);
  }

  // ---- the reviewer's marks (docs/report.md#reviewing) ---------------------------------------
  // Kept in the page's memory: {label, key} by row, in the order first marked.
  const marks = new Map();
  let download = null;
  function markKey(row) {
    return JSON.stringify([row._source, row.eval_file, row.eval_id, row.target, row.variant ?? null, row.repeat || 0]);
  }
  // A line of a judge-check labels file (docs/judges.md#judge-check): eval_file and repeat
  // always, so that it names exactly one row.
  function label(row, pass) {
    return { eval_id: row.eval_id, target: row.target, eval_file: row.eval_file, repeat: row.repeat || 0, pass: pass };
  }
  function labelsText() {
    return Array.from(marks.values(), (l) => JSON.stringify(l) + "\n").join("");
  }
  // A Blob URL made in the page (nothing is sent anywhere), the previous one let go.
  function downloadLabels() {
    if (download) URL.revokeObjectURL(download);
    download = URL.createObjectURL(new Blob([labelsText()], { type: "application/x-ndjson" }));
    const link = el("a", { href: download, download: "labels.jsonl" });
    document.body.appendChild(link);
    link.click();
    link.remove();
  }
  function reviewPart(entry) {
    if (entry.removed) return null;
    const row = entry.row;
    const key = markKey(row);
    const body = el("div", { class: "review" });
    const set = (pass) => () => {
      if (pass === null) marks.delete(key);
      else marks.set(key, label(row, pass));
      draw();
    };
    const draw = () => {
      const mark = marks.has(key) ? (marks.get(key).pass ? "pass" : "fail") : "none";
      const count = marks.size;
      body.replaceChildren(el("p", {}, "your mark: ",
        el("span", { id: "review-mark", class: "status " + mark, "data-mark": mark }, mark), " ",
        el("button", { type: "button", id: "mark-pass", onclick: set(true) }, "mark pass"),
        el("button", { type: "button", id: "mark-fail", onclick: set(false) }, "mark fail"),
        el("button", { type: "button", id: "mark-clear", onclick: set(null), disabled: mark === "none" }, "clear"),
        " · ", el("span", { id: "review-count" }, count + " row(s) marked"), " ",
        el("button", { type: "button", id: "download-labels", onclick: downloadLabels, disabled: count === 0 },
          "download labels.jsonl")));
    };
    draw();
    return section("review", body);
  }

  return { mediaList, turnChecks, workspacePart, reviewPart };
}
