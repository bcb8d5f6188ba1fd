// Drawing a game's board as SVG from the engine's geometry alone (no per-game code), with its
// pieces, the LED signals in shapes and words as well as colour, and the last move.
// Shared by the kiosk page and the emulated board's page. No build step: an ES module.

const SVG = "http://www.w3.org/2000/svg";

// The LED vocabulary (docs/leds.md): tag, words, and the shape drawn for it.
export const SIGNALS = {
  move_to: { tag: "TO", words: "move here", shape: "ring" },
  move_from: { tag: "FR", words: "take from here", shape: "dashed" },
  remove: { tag: "RM", words: "remove (captured)", shape: "cross" },
  put_back: { tag: "PB", words: "put a piece back", shape: "dotted" },
  illegal: { tag: "!!", words: "must not be here", shape: "bang" },
  choose: { tag: "??", words: "one option of a choice", shape: "double" },
  adjust: { tag: "AD", words: "turn it to its new value", shape: "square" },
  hint: { tag: "..", words: "may go here", shape: "dot" },
  held: { tag: "==", words: "may not move now", shape: "bar" },
  charged: { tag: ">>", words: "charging", shape: "arrow" },
  refused: { tag: "NO", words: "that button does nothing now", shape: "dotted" },
  flag: { tag: "TM", words: "lost on time", shape: "bar" },
};

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

function nearest(cells) {
  // The smallest distance between two cell centres: the size of one cell.
  let best = Infinity;
  for (let i = 0; i < cells.length; i++) {
    for (let j = i + 1; j < cells.length; j++) {
      const d = Math.hypot(cells[i].x - cells[j].x, cells[i].y - cells[j].y);
      if (d > 1e-6 && d < best) best = d;
    }
  }
  return Number.isFinite(best) ? best : 1;
}

function outline(cell, unit) {
  // Points of the cell's polygon around (0, 0), in SVG coordinates (y down).
  const pts = [];
  if (cell.shape === "square") {
    const h = 0.5;
    pts.push([-h, -h], [h, -h], [h, h], [-h, h]);
  } else if (cell.shape === "diamond") {
    const h = Math.SQRT1_2;
    pts.push([0, -h], [h, 0], [0, h], [-h, 0]);
  } else if (cell.shape === "hex") {
    const r = 1 / Math.sqrt(3);
    for (let k = 0; k < 6; k++) {
      const a = Math.PI / 6 + (k * Math.PI) / 3;
      pts.push([r * Math.cos(a), r * Math.sin(a)]);
    }
  } else {
    return null; // a spot: drawn as a circle
  }
  return pts.map(([x, y]) => `${(x * 0.97).toFixed(4)},${(y * 0.97).toFixed(4)}`).join(" ");
}

const MIN_TEXT_PX = 14; // the least a person reads at arm's length (the kiosk's rule)

// The coordinates along the board's edges, as on a printed board: each column's letter below
// its lowest cell, each row's number left of its leftmost cell. Only for boards whose cells
// are named letter-and-number (a1, B2); null for the others (their names stay in the cells).
function edgeCoordinates(board, minX, svg) {
  const named = board.cells.map((c) => [c, /^([A-Za-z]+)(\d+)$/.exec(c.name)]);
  if (named.some(([, m]) => !m)) return null;
  const columns = new Map(), rows = new Map();
  for (const [c, m] of named) {
    const col = columns.get(m[1]) || [];
    col.push(c);
    columns.set(m[1], col);
    const row = rows.get(m[2]) || [];
    row.push(c);
    rows.set(m[2], row);
  }
  // Only a board in straight files and ranks (each letter's cells in one column, each
  // number's in one row): on a board of another shape (hexes, the Lion Game's) an edge's
  // letter would name no line of cells, and the names stay in the cells.
  const straight = (groups, axis) => [...groups.values()].every((cells) =>
    cells.every((c) => Math.abs(c[axis] - cells[0][axis]) < 0.01));
  if (!straight(columns, "x") || !straight(rows, "y")) return null;
  const group = el("g", { class: "coords", "pointer-events": "none" }, svg);
  for (const [letter, cells] of columns) {
    const low = cells.reduce((a, b) => (-a.y > -b.y ? a : b));
    const t = el("text", { x: low.x, y: -low.y + 0.58, "text-anchor": "middle",
      "dominant-baseline": "central" }, group);
    t.textContent = letter;
  }
  for (const [number, cells] of rows) {
    const left = cells.reduce((a, b) => (a.x < b.x ? a : b));
    const t = el("text", { x: Math.max(minX + 0.05, left.x - 0.58), y: -left.y,
      "text-anchor": "middle", "dominant-baseline": "central" }, group);
    t.textContent = number;
  }
  return group;
}

// The inner size (diameter of the largest circle inside a cell) for each shape.
function inner(cell, spot) {
  if (cell.shape === "square") return 1;
  if (cell.shape === "diamond") return 1;
  if (cell.shape === "hex") return 1;
  return spot * 2;
}

export class BoardView {
  constructor(svg, onCell = null) {
    this.svg = svg;
    this.onCell = onCell;
    this.key = null;
    this.cells = new Map();
  }

  // Build the board's cells once per game (board.key changes with the game and options).
  setBoard(board) {
    if (board.key === this.key) return;
    this.key = board.key;
    this.svg.replaceChildren();
    this.cells.clear();
    const grid = board.cells.filter((c) => c.shape !== "point");
    const spots = board.cells.filter((c) => c.shape === "point");
    const spotGap = nearest(spots.length > 1 ? spots : board.cells);
    const spot = Math.min(0.42, spotGap * 0.42);
    const xs = board.cells.map((c) => c.x);
    const ys = board.cells.map((c) => -c.y);
    const pad = 0.85;
    const minX = Math.min(...xs) - pad, maxX = Math.max(...xs) + pad;
    const minY = Math.min(...ys) - pad, maxY = Math.max(...ys) + pad;
    this.svg.setAttribute("viewBox", `${minX} ${minY} ${maxX - minX} ${maxY - minY}`);
    this.svg.setAttribute("role", "img");
    const links = el("g", { class: "links" }, this.svg);
    for (const [a, b] of board.links) {
      const p = board.cells[a], q = board.cells[b];
      el("line", { x1: p.x, y1: -p.y, x2: q.x, y2: -q.y }, links);
    }
    const layers = {
      cells: el("g", { class: "cells" }, this.svg),
      // Pieces and signals let clicks through to their cell.
      pieces: el("g", { class: "pieces", "pointer-events": "none" }, this.svg),
      signals: el("g", { class: "signals", "pointer-events": "none" }, this.svg),
    };
    this.unitFor = new Map();
    for (const cell of board.cells) {
      const g = el("g", {
        class: "cell", transform: `translate(${cell.x} ${-cell.y})`, "data-cell": cell.name,
      }, layers.cells);
      if (cell.zone) g.classList.add("zone");
      const terrain = (board.terrain || []).findIndex((t) => t.region === cell.region);
      if (cell.region) g.classList.add(`region-${cell.region}`, "region", `terrain-${terrain}`);
      if (cell.blocked) g.classList.add("blocked");
      const points = outline(cell);
      const size = inner(cell, spot);
      const shape = points
        ? el("polygon", { points, class: "face" }, g)
        : el("circle", { r: spot, class: "face" }, g);
      el("title", {}, shape).textContent = cell.name + (cell.zone ? ` (${cell.zone})` : "");
      const label = el("text", {
        class: "label", x: 0, y: size * 0.45, "text-anchor": "middle",
      }, g);
      label.textContent = cell.name;
      label.setAttribute("font-size", (size * 0.17).toFixed(3));
      // Terrain carries its glyph too (the key shows the same), so it reads without colour.
      const glyph = terrain >= 0 ? board.terrain[terrain].glyph
        : cell.blocked ? ((board.terrain || []).find((t) => t.region === "blocked") || {}).glyph : "";
      if (glyph) {
        const mark = el("text", { class: "glyph", x: -size * 0.3, y: -size * 0.22 }, g);
        mark.textContent = glyph;
        mark.setAttribute("font-size", (size * 0.22).toFixed(3));
      }
      const at = { transform: `translate(${cell.x} ${-cell.y})`, "data-cell": cell.name };
      const pieceG = el("g", { ...at, class: "slot" }, layers.pieces);
      const signalG = el("g", { ...at, class: "mark" }, layers.signals);
      if (this.onCell) {
        g.addEventListener("click", () => this.onCell(cell.name));
        g.classList.add("clickable");
      }
      this.cells.set(cell.name, { cell, g, pieceG, signalG, size, label });
    }
    void grid;
    this.coords = edgeCoordinates(board, minX, this.svg);
    this.fit();
    if (!this.resizing && typeof ResizeObserver !== "undefined") {
      this.resizing = new ResizeObserver(() => this.fit());
      this.resizing.observe(this.svg);
    }
  }

  // Text at the size it is drawn: a cell's name inside it, or an LED tag, too small to read
  // (under 14 px, on a big board at 800x480) gives way: the cells' names go to the board's
  // edges, as on a printed board, at 14 px or more; the tags leave the shape and colour of
  // the light on the board and the tag in the legend beside it.
  fit() {
    const box = this.svg.getBoundingClientRect();
    const view = this.svg.viewBox.baseVal;
    if (!box.width || !view || !view.width) return;
    const scale = Math.min(box.width / view.width, box.height / view.height);
    const sizes = [...this.cells.values()].map((v) => v.size);
    const smallest = Math.min(...sizes);
    const inCell = smallest * 0.17 * scale >= MIN_TEXT_PX;
    this.svg.classList.toggle("edge-names", !inCell && Boolean(this.coords));
    if (this.coords) this.coords.setAttribute("font-size", (MIN_TEXT_PX * 1.08 / scale).toFixed(3));
    if (!this.coords) {  // names stay in the cells: never smaller than the least one reads
      for (const v of this.cells.values()) {
        v.label.setAttribute("font-size", Math.max(v.size * 0.17, (MIN_TEXT_PX * 1.02) / scale).toFixed(3));
      }
    }
    this.svg.classList.toggle("no-tags", smallest * 0.22 * 0.78 * scale < MIN_TEXT_PX);
  }

  // Pieces, LED signals, the last move, lifted and unexpected pieces.
  render({ pieces = [], signals = {}, last = [], lifted = [], unexpected = [], ghosts = [],
    misplaced = [], selected = null }) {
    const byCell = new Map(pieces.map((p) => [p.cell, p]));
    const ghostOf = new Map(ghosts.map((p) => [p.cell, p]));
    const misplacedOf = new Map(misplaced.map((p) => [p.cell, p]));
    const liftedSet = new Set(lifted);
    const unexpectedSet = new Set(unexpected);
    const lastSet = new Set(last);
    for (const [name, v] of this.cells) {
      v.g.classList.toggle("last", lastSet.has(name));
      v.g.classList.toggle("selected", selected === name);
      v.pieceG.replaceChildren();
      const piece = byCell.get(name);
      if (piece) drawPiece(v.pieceG, piece, v.size, liftedSet.has(name));
      else if (ghostOf.has(name)) drawPiece(v.pieceG, ghostOf.get(name), v.size, false, true);
      else if (misplacedOf.has(name)) drawPiece(v.pieceG, misplacedOf.get(name), v.size, false, false, true);
      else if (unexpectedSet.has(name)) drawUnknown(v.pieceG, v.size);
      v.signalG.replaceChildren();
      const signal = signals[name];
      if (signal) drawSignal(v.signalG, signal, v.size);
    }
  }
}

export function drawPiece(g, piece, size, lifted = false, ghost = false, misplaced = false) {
  const r = size * 0.31;
  const kind = lifted ? " lifted" : ghost ? " ghost" : misplaced ? " misplaced" : "";
  const group = el("g", { class: `piece owner-${piece.owner}${kind}` }, g);
  el("title", {}, group).textContent =
    `${piece.kind} of player ${piece.owner}` + (piece.state == null ? "" : ` (${piece.state})`) +
    (lifted ? " — lifted" : ghost ? " — no longer in the game" : misplaced ? " — not where the game has it" : "");
  el("circle", { r, class: "disc" }, group);
  el("circle", { r: r * 0.8, class: "rim" }, group);
  const t = el("text", {
    class: "symbol", "text-anchor": "middle", "dominant-baseline": "central",
    "font-size": (r * 1.05).toFixed(3),
  }, group);
  t.textContent = piece.symbol;
  if (piece.state != null) {
    el("circle", { cx: r * 0.8, cy: -r * 0.8, r: r * 0.45, class: "badge" }, group);
    const s = el("text", {
      x: r * 0.8, y: -r * 0.8, class: "state", "text-anchor": "middle",
      "dominant-baseline": "central", "font-size": (r * 0.62).toFixed(3),
    }, group);
    s.textContent = String(piece.state);
  }
}

function drawUnknown(g, size) {
  const r = size * 0.3;
  const group = el("g", { class: "piece unknown" }, g);
  el("title", {}, group).textContent = "a piece the referee does not expect here";
  el("circle", { r, class: "disc" }, group);
  const t = el("text", {
    class: "symbol", "text-anchor": "middle", "dominant-baseline": "central",
    "font-size": (r * 1.1).toFixed(3),
  }, group);
  t.textContent = "?";
}

export function drawSignal(g, signal, size) {
  const meta = SIGNALS[signal];
  if (!meta) return;
  const r = size * 0.44;
  const group = el("g", { class: `signal sig-${signal}` }, g);
  el("title", {}, group).textContent = `${meta.tag}: ${meta.words}`;
  const ring = (radius, cls) => el("circle", { r: radius, class: cls }, group);
  switch (meta.shape) {
    case "ring": ring(r, "line"); break;
    case "dashed": ring(r, "line dashed"); break;
    case "dotted": ring(r, "line dotted"); break;
    case "double": ring(r, "line"); ring(r * 0.78, "line thin"); break;
    case "square": el("rect", { x: -r, y: -r, width: 2 * r, height: 2 * r, class: "line" }, group); break;
    case "dot": el("circle", { r: size * 0.1, class: "fill" }, group); break;
    case "bar":
      ring(r, "line thin");
      el("line", { x1: -r * 0.7, y1: r * 0.55, x2: r * 0.7, y2: r * 0.55, class: "line" }, group);
      break;
    case "arrow":
      ring(r, "line thin dashed");
      el("polyline", { points: `${-r * 0.5},${r * 0.75} 0,${r * 0.45} ${r * 0.5},${r * 0.75}`,
        class: "line" }, group);
      break;
    case "cross":
    case "bang": {
      ring(r, "line");
      const d = r * 0.62;
      el("line", { x1: -d, y1: -d, x2: d, y2: d, class: "line" }, group);
      el("line", { x1: -d, y1: d, x2: d, y2: -d, class: "line" }, group);
      break;
    }
    default: ring(r, "line");
  }
  if (signal !== "hint") {
    const w = size * 0.36, h = size * 0.22;
    const x = size * 0.5 - w * 0.95, y = -size * 0.5 + h * 0.1;
    el("rect", { x, y, width: w, height: h, rx: h * 0.2, class: "tagbox" }, group);
    const t = el("text", {
      x: x + w / 2, y: y + h / 2, class: "tag", "text-anchor": "middle",
      "dominant-baseline": "central", "font-size": (h * 0.78).toFixed(3),
    }, group);
    t.textContent = meta.tag;
  }
}

// The key to a game's board: each piece kind's letter, and each terrain's shade and glyph.
export function boardKey(container, board) {
  container.replaceChildren();
  // One entry: a small picture, drawn by ``draw`` into its SVG, and its words.
  const item = (draw, text, title = "") => {
    const entry = document.createElement("span");
    entry.className = "key-item";
    if (title) entry.title = title;
    const svg = el("svg", { viewBox: "-0.5 -0.5 1 1", width: 24, height: 24 }, entry);
    draw(svg);
    const words = document.createElement("span");
    words.textContent = text;
    entry.appendChild(words);
    container.appendChild(entry);
  };
  for (const kind of board.kinds || []) {
    item((svg) => drawPiece(svg, { symbol: kind.symbol, kind: kind.name, owner: 1, state: null }, 1.25),
      kind.name, kind.doc);
  }
  (board.terrain || []).forEach((t, index) => item((svg) => {
    const g = el("g", { class: t.region === "blocked" ? "cell blocked" : `cell region terrain-${index}` }, svg);
    el("rect", { x: -0.45, y: -0.45, width: 0.9, height: 0.9, class: "face" }, g);
    if (t.glyph) {
      const mark = el("text", { class: "glyph", x: 0, y: 0.14, "text-anchor": "middle" }, g);
      mark.textContent = t.glyph;
      mark.setAttribute("font-size", "0.45");
    }
  }, t.words));
}

// A small legend of the signals shown now: the same shape, tag and words as on the board;
// with ``cells`` (signal -> cell names), where each is lit too ("PB put a piece back: b2").
export function legend(container, signals, cells = null) {
  container.replaceChildren();
  const used = [...new Set(Object.values(signals))];
  for (const signal of Object.keys(SIGNALS)) {
    if (!used.includes(signal)) continue;
    const item = document.createElement("span");
    item.className = "legend-item";
    // The light's shape and colour; its tag is in the words beside it, at the text's size
    // (inside a 28 px swatch it would be 10 px).
    const svg = el("svg", { viewBox: "-0.6 -0.6 1.2 1.2", width: 28, height: 28, class: "no-tags" });
    drawSignal(svg, signal, 1);
    item.appendChild(svg);
    const words = document.createElement("span");
    words.textContent = `${SIGNALS[signal].tag} ${SIGNALS[signal].words}` +
      (cells && cells[signal] ? `: ${cells[signal].join(", ")}` : "");
    item.appendChild(words);
    container.appendChild(item);
  }
}

// A clock's figure as a clock shows it (engine/clock.py's clock_text): 1:05:07, 4:59, and
// tenths under ten seconds (9.4). The kiosk and the club view count clocks down with it.
export function clockText(ms) {
  ms = Math.max(0, Math.floor(ms));
  if (ms < 10000) return `${Math.floor(ms / 1000)}.${Math.floor((ms % 1000) / 100)}`;
  const all = Math.floor(ms / 1000);
  const h = Math.floor(all / 3600), m = Math.floor((all % 3600) / 60), sec = all % 60;
  const two = (n) => String(n).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}
