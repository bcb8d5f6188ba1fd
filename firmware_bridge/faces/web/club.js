// The club view: every board as a small live picture, alerts for what needs the director,
// and the results. Fed by the club server's stream (Server-Sent Events); a board's card opens
// its full live page.
import { BoardView } from "/static/board.js";
import "/static/token.js"; // keeps a ?token= for the board pages' controls

const $ = (id) => document.getElementById(id);
const boards = new Map(); // name -> summary
const cards = new Map(); // name -> { a, view, ... }
const pictures = new Map(); // board name and key -> picture (or a promise of it)
let alertAfter = 20;
let resultsShown = -1;

function time(seconds) {
  return new Date(seconds * 1000).toLocaleTimeString([], { hour12: false });
}

function count(n, noun) {
  return `${n} ${n === 1 ? noun : noun + "s"}`;
}

function ago(seconds) {
  const s = Math.max(0, Math.round(Date.now() / 1000 - seconds));
  return s < 90 ? `${s} s` : `${Math.round(s / 60)} min`;
}

// What needs the director, worst first: [level, sentence] or null.
function attention(b) {
  if (b.online === false) return ["red", `offline since ${time(b.status_at)} (${b.status_reason === "stopped" ? "the referee was stopped" : "the referee's connection was lost"})`];
  if (b.problem) return ["red", `sends what the club view cannot use (${b.problem})${b.key ? "; its last good state is shown" : ""}`];
  const c = b.connection || {};
  const sensors = b.sensor_warnings || [];
  // An illegal move on the board stays the alert for as long as it is there: a suspicion of
  // a sensor is added to it, never put in its place.
  const brief = b.sensor_brief || (sensors.length ? `sensor trouble on ${sensors.map((w) => w.cell).join(", ")}` : "");
  if (b.alert && b.alert_since && Date.now() / 1000 - b.alert_since >= alertAfter) {
    const what = b.alert === "knocked" ? "a knocked-over piece" : "an illegal move";
    const todo = b.status.replace(/^illegal move or disturbed board: /, "");
    return ["red", `${what} uncorrected for ${ago(b.alert_since)}: ${todo}` + (brief ? ` (${brief})` : "")];
  }
  if (sensors.length) return ["red", `${brief}: ${sensors[0].text}`];
  const recent = (c.faults || []).filter((f) => Date.now() / 1000 - f.at < 600);
  if (recent.length) {
    const f = recent[recent.length - 1];
    return ["red", `the board reported FAULT ${f.code}: ${f.text} at ${time(f.at)}`];
  }
  if (b.refused && b.refused.length) return ["amber", `the broker refuses its ${b.refused.join(", ")}: its login needs write access there (the broker's ACL, docs/mqtt.md)`];
  if (c.state === "waiting" || c.state === "connecting") return ["amber", `board not connected: ${c.message}`];
  if (c.state === "wrong-board") return ["amber", `wrong board: ${c.message}`];
  if (b.alert) return ["amber", b.status];
  return null;
}

// A board's own picture: one board can never change what another board's card draws.
async function picture(name, key) {
  const id = `${name}\n${key}`;
  if (!pictures.has(id)) {
    const url = `/api/picture/${encodeURIComponent(name)}?key=${encodeURIComponent(key)}`;
    pictures.set(id, fetch(url).then((r) => (r.ok ? r.json() : null)).catch(() => null));
  }
  const pic = await pictures.get(id);
  if (!pic) pictures.delete(id); // not there (yet): ask again next time
  return pic;
}

function card(name) {
  let c = cards.get(name);
  if (c) return c;
  const a = document.createElement("a");
  a.className = "card";
  a.href = `/board/${encodeURIComponent(name)}/`;
  a.dataset.board = name;
  a.innerHTML = `<div class="head"><span class="name"></span><span class="game"></span></div>
    <div class="people"></div><svg class="board" aria-hidden="true"></svg><div class="status"></div>
    <div class="foot"><span class="turn"></span><span class="badge"></span></div>`;
  c = { a, view: new BoardView(a.querySelector("svg")), key: null };
  a.querySelector(".name").textContent = name;
  cards.set(name, c);
  return c;
}

async function draw(b) {
  const c = card(b.name);
  const a = c.a;
  a.querySelector(".game").textContent = b.title;
  a.querySelector(".game").title = `${b.title} · game ${b.game_number} · ${Object.entries(b.options || {}).map(([k, v]) => `${k}=${v}`).join(", ")}`;
  const status = a.querySelector(".status");
  status.textContent = !b.key && b.problem ? `Bad data: ${b.problem}`
    : b.outcome ? b.outcome : (b.status ? b.status[0].toUpperCase() + b.status.slice(1) : "");
  status.className = "status" + (b.outcome ? " over" : "") + (b.alert || b.problem ? " alert" : "")
    + (!b.key && b.problem ? " bad" : "");
  status.title = status.textContent; // the whole sentence, where the card cuts it
  const people = b.people || ["", ""];
  const who = (n) => people[n - 1] || (b.players || [])[n - 1] || "";
  const moves = count(b.moves || 0, "move");
  const turn = b.outcome ? moves : b.to_move ? `${who(b.to_move)} to move · ${moves}` : "";
  a.querySelector(".turn").textContent = turn + (b.last_text ? ` · last ${b.last_text}` : "");
  const playing = (b.players || []).map((side, i) => people[i] ? `${people[i]} (${side})` : side);
  a.querySelector(".people").textContent = playing.length === 2 ? `${playing[0]} v ${playing[1]}` : "";
  const badge = a.querySelector(".badge");
  const conn = b.online === false ? "offline" : (b.connection || {}).state || "";
  badge.className = `badge ${conn}`;
  badge.textContent = conn.replace("-", " ");
  if (b.key && b.key !== c.key) {
    const pic = await picture(b.name, b.key);
    if (pic) { c.view.setBoard(pic); c.key = b.key; }
  }
  if (c.key) {
    c.view.render({ pieces: b.pieces || [], signals: b.signals || {}, last: b.last_move || [],
      lifted: b.lifted || [], unexpected: b.unexpected || [], ghosts: b.ghosts || [] });
  }
}

function matches(b, text, show) {
  const need = attention(b);
  if (show === "attention" && !need) return false;
  if (show === "playing" && (b.outcome || b.online === false)) return false;
  if (show === "over" && !b.outcome) return false;
  if (show === "offline" && b.online !== false) return false;
  if (!text) return true;
  const hay = [b.name, b.title, b.game, ...(b.players || []), ...(b.people || [])].join(" ").toLowerCase();
  return hay.includes(text.toLowerCase());
}

function tableOrder(a, b) {
  return a.name.localeCompare(b.name, undefined, { numeric: true });
}

function arrange() {
  const text = $("filter").value.trim();
  const show = $("show").value;
  const sort = $("sort").value;
  const list = [...boards.values()].filter((b) => matches(b, text, show));
  const rank = (b) => { const n = attention(b); return n ? (n[0] === "red" ? 0 : 1) : 2; };
  list.sort((a, b) => {
    if (sort === "attention") return rank(a) - rank(b) || tableOrder(a, b);
    if (sort === "recent") return (b.at || 0) - (a.at || 0) || tableOrder(a, b);
    if (sort === "game") return a.title.localeCompare(b.title) || tableOrder(a, b);
    return tableOrder(a, b);
  });
  const grid = $("grid");
  const wanted = list.map((b) => card(b.name).a);
  const same = wanted.length === grid.children.length && wanted.every((a, i) => grid.children[i] === a);
  if (!same) grid.replaceChildren(...wanted);
  if (!list.length) {
    const p = document.createElement("p");
    p.className = "empty";
    p.textContent = boards.size ? "No board matches." : "No board has published yet. Start referees with --mqtt and --board-id.";
    grid.replaceChildren(p);
  }
  refreshAlerts();
}

function refreshAlerts() {
  const box = $("alerts");
  const rows = [];
  let red = 0, offline = 0, over = 0;
  for (const b of [...boards.values()].sort(tableOrder)) {
    const need = attention(b);
    const c = cards.get(b.name);
    if (c) {
      c.a.classList.toggle("red", need?.[0] === "red");
      c.a.classList.toggle("amber", need?.[0] === "amber");
      c.a.classList.toggle("offline", b.online === false);
    }
    if (b.online === false) offline += 1;
    if (b.outcome) over += 1;
    if (need && need[0] === "red") {
      red += 1;
      const a = document.createElement("a");
      a.className = "alert red";
      a.href = `/board/${encodeURIComponent(b.name)}/`;
      a.dataset.board = b.name;
      a.textContent = `${b.name}: ${need[1]}`;
      rows.push(a);
    }
  }
  box.replaceChildren(...rows);
  const needs = red === 1 ? "needs" : "need";
  $("summary").textContent = `${count(boards.size, "board")} · ${red} ${needs} attention · ${offline} offline · ${count(over, "game")} over`;
}
setInterval(refreshAlerts, 1000);

async function loadResults() {
  const response = await fetch("/api/results");
  if (!response.ok) return;
  const { results } = await response.json();
  if (results.length === resultsShown) return;
  resultsShown = results.length;
  const body = $("results").tBodies[0];
  body.replaceChildren();
  for (const r of [...results].reverse()) {
    const tr = body.insertRow();
    const when = new Date(r.ended);
    const ended = r.ended && !Number.isNaN(when.getTime())
      ? `${when.toLocaleDateString([], { day: "numeric", month: "short" })} ${when.toLocaleTimeString([], { hour12: false, hour: "2-digit", minute: "2-digit" })}` : "";
    const people = r.people || ["", ""];
    const players = (r.players || []).map((side, i) => people[i] ? `${side}: ${people[i]}` : side).join(" v ");
    for (const text of [r.board, `${r.title} (game ${r.game_number})`, players, r.outcome, r.moves, ended]) {
      tr.insertCell().textContent = text;
    }
    const link = document.createElement("a");
    link.href = `/records/${encodeURIComponent(r.board)}/${r.game_number}`;
    link.textContent = "record";
    link.target = "_blank";
    tr.insertCell().appendChild(link);
  }
  $("no-results").hidden = results.length > 0;
}

function take(list) {
  for (const b of list) {
    boards.set(b.name, b);
    draw(b);
  }
  arrange();
  if (list.some((b) => b.outcome)) loadResults();
}

function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("club", (event) => {
    $("banner").hidden = true;
    const club = JSON.parse(event.data);
    alertAfter = club.alert_after;
    const refused = club.refused_reads || [];
    $("broker").className = `conn ${club.broker && !refused.length ? "online" : "offline"}`;
    $("broker").textContent = !club.broker ? "broker not connected"
      : refused.length ? `the broker refuses to let the club read ${refused.join(", ")}` : "broker connected";
    const names = new Set(club.boards.map((b) => b.name));
    for (const name of [...boards.keys()]) {
      if (names.has(name)) continue;
      boards.delete(name);
      cards.delete(name);
      for (const id of [...pictures.keys()]) if (id.startsWith(`${name}\n`)) pictures.delete(id);
    }
    take(club.boards);
    loadResults();
  });
  source.addEventListener("boards", (event) => take(JSON.parse(event.data)));
  source.onopen = () => { $("banner").hidden = true; };
  source.onerror = () => {
    $("banner").hidden = false;
    if (source.readyState === EventSource.CLOSED) { source.close(); setTimeout(connect, 1000); }
  };
}

for (const id of ["filter", "show", "sort"]) $(id).addEventListener("input", arrange);
connect();
