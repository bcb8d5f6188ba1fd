// The club view: every board as a small live picture, alerts for what needs the director,
// and the results. Fed by the club server's stream (Server-Sent Events); a board's card opens
// its full live page.
import { BoardView, clockText } from "/static/board.js";
import "/static/token.js"; // keeps a ?token= for the board pages' controls

const $ = (id) => document.getElementById(id);
const boards = new Map(); // name -> summary
const cards = new Map(); // name -> { a, view, ... }
const pictures = new Map(); // board name and key -> picture (or a promise of it)
let alertAfter = 20;
let resultsShown = "";

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

// What needs the director, the most important first: [level, sentence] or null. An illegal
// move left on the board comes before everything (it is still there when the board is
// unplugged); a board gone or unplugged in mid-game, a fault and a sensor next; then what may
// wait (a wrong board, a topic the broker refuses, a game with no move for a long time).
const IDLE_MINUTES = 15;
// A referee's "offline" that reached the club with the broker's own outage is the broker's
// doing: the board is not offline, it is reconnecting. A broker that is stopped sends its
// referees' last wills as it goes, the moment before the club loses it (SHUTDOWN_WILLS s at
// most); one that keeps sessions sends them again when it is back, before its referees have
// had time to reconnect. A referee back within RECONNECT_GRACE is fine. An "offline" that came
// earlier is a referee that died before the outage: offline, whatever the broker did after.
const RECONNECT_GRACE = 90;
const SHUTDOWN_WILLS = 2;
let outage = null;
function brokers(b) {
  if (b.online !== false || !outage || b.offline_received == null) return false;
  const r = b.offline_received;
  if (r < outage.lost - SHUTDOWN_WILLS) return false;
  if (outage.back == null) return true;
  return r <= outage.back + RECONNECT_GRACE && Date.now() / 1000 - outage.back < RECONNECT_GRACE;
}

function attention(b) {
  const c = b.connection || {};
  const sensors = b.sensor_warnings || [];
  const brief = b.sensor_brief || (sensors.length ? `sensor trouble on ${sensors.map((w) => w.cell).join(", ")}` : "");
  const playing = !b.outcome && (b.moves || 0) > 0;
  if (b.alert && b.alert_since && Date.now() / 1000 - b.alert_since >= alertAfter) {
    const what = b.alert === "knocked" ? "a knocked-over piece" : "an illegal move";
    const todo = b.status.replace(/^illegal move or disturbed board: /, "");
    const unplugged = c.state === "waiting" || c.state === "connecting" ? " (the board is unplugged)" : "";
    return ["red", `${what} uncorrected for ${ago(b.alert_since)}${unplugged}: ${todo}` + (brief ? ` (${brief})` : "")];
  }
  if (brokers(b)) return null;  // the broker's outage, said once in the summary
  if (b.online === false) return ["red", `offline since ${time(b.status_at)} (${b.status_reason === "stopped" ? "the referee was stopped" : "the referee's connection was lost"})${playing ? ", in mid-game" : ""}`];
  if (b.problem) return ["red", `sends what the club view cannot use (${b.problem})${b.key ? "; its last good state is shown" : ""}`];
  if (playing && (c.state === "waiting" || c.state === "connecting")) return ["red", `board not connected in mid-game: ${c.message}`];
  const recent = (c.faults || []).filter((f) => Date.now() / 1000 - f.at < 600);
  if (recent.length) {
    const f = recent[recent.length - 1];
    return ["red", `the board reported FAULT ${f.code}: ${f.text} at ${time(f.at)}`];
  }
  if (sensors.length) return ["red", `${brief}: ${sensors[0].text}`];
  if (c.state === "wrong-board") return ["amber", `wrong board: ${c.message}`];
  if (c.state === "waiting" || c.state === "connecting") return ["amber", `board not connected: ${c.message}`];
  const taken = (b.taken_over || []).filter((t) => Date.now() / 1000 - t < 1800);
  if (taken.length) return ["amber", `another client connected with this board's login and the broker cut its referee off (${taken.length === 1 ? "once" : `${taken.length} times`}, last at ${time(taken[taken.length - 1])}): a second referee running as ${b.name}, or its login used elsewhere`];
  if (b.refused && b.refused.length) return ["amber", `the broker refuses its ${b.refused.join(", ")}: its login needs write access there (the broker's ACL, docs/mqtt.md)`];
  if (b.alert) return ["amber", b.status];
  if (playing && b.last_move_at && Date.now() / 1000 - b.last_move_at >= IDLE_MINUTES * 60) {
    return ["amber", `no move for ${ago(b.last_move_at)}`];
  }
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
    <div class="people"></div><div class="clocks" hidden></div><svg class="board" aria-hidden="true"></svg><div class="status"></div>
    <div class="foot"><span class="turn"></span><span class="badge"></span></div>`;
  c = { a, view: new BoardView(a.querySelector("svg")), key: null };
  a.querySelector(".name").textContent = name;
  cards.set(name, c);
  return c;
}

// Each board's clocks on its card, counted down here between its states (as on the kiosk).
function drawClocks(b) {
  const box = card(b.name).a.querySelector(".clocks");
  const c = b.clocks;
  box.hidden = !c;
  if (!c) return;
  const live = c.running && !c.paused && !c.held && !c.flagged && !b.outcome;
  const spent = live ? performance.now() - (b.clocksAt || performance.now()) : 0;
  const sides = b.players || ["1", "2"];
  box.textContent = [1, 2].map((p) => {
    const left = c.left_ms[p - 1] - (live && c.running === p ? spent : 0);
    const mark = c.flagged === p ? " ⚑" : c.running === p && !b.outcome ? " ◀" : "";
    return `${sides[p - 1]} ${clockText(left)}${mark}`;
  }).join("  ·  ") + (c.paused ? " (paused)" : "");
  box.classList.toggle("low", (c.low || []).some(Boolean));
}
setInterval(() => { for (const b of boards.values()) if (b.clocks) drawClocks(b); }, 250);

async function draw(b) {
  const c = card(b.name);
  const a = c.a;
  b.clocksAt = performance.now();
  drawClocks(b);
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
  a.querySelector(".people").textContent = playing.length === 2 ? `${playing[0]} against ${playing[1]}` : "";
  const badge = a.querySelector(".badge");
  const conn = brokers(b) ? "reconnecting" : b.online === false ? "offline"
    : (b.connection || {}).state || "";
  badge.className = `badge ${conn}`;
  badge.textContent = conn.replace("-", " ");
  if (b.key && b.key !== c.key) {
    const pic = await picture(b.name, b.key);
    if (pic) { c.view.setBoard(pic); c.key = b.key; }
  }
  if (c.key) {
    c.view.render({ pieces: b.pieces || [], signals: b.signals || {}, last: b.last_move || [],
      lifted: b.lifted || [], unexpected: b.unexpected || [], ghosts: b.ghosts || [],
      misplaced: b.misplaced || [] });
  }
}

function matches(b, text, show) {
  const need = attention(b);
  if (show === "attention" && !need) return false;
  if (show === "playing" && (b.outcome || b.online === false)) return false;
  if (show === "over" && !b.outcome) return false;
  if (show === "offline" && b.online !== false) return false;
  if (!text) return true;
  // Whole words, as a person searches names: each word typed begins a word of the board's
  // names ("Erin" finds Erin and Erin-Sue, never Goats Wint-erin-g; "tab" finds table2). The
  // people playing, never the sides: "White" is a side on most boards, and finds nobody.
  const hay = words([b.name, b.title, b.game, ...(b.people || [])].join(" "));
  return words(text).every((w) => hay.some((h) => h.startsWith(w)));
}

function words(text) {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
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
      c.a.classList.toggle("offline", b.online === false && !brokers(b));
    }
    if (b.online === false && !brokers(b)) offline += 1;
    if (b.outcome) over += 1;
    if (need) {
      red += 1;
      const a = document.createElement("a");
      a.className = `alert ${need[0]}`;
      a.href = `/board/${encodeURIComponent(b.name)}/`;
      a.dataset.board = b.name;
      a.textContent = `${b.name}: ${need[1]}`;
      rows.push(a);
    }
  }
  for (const r of refusals.filter((x) => Date.now() / 1000 - x.at < REFUSALS_SHOWN)) {
    red += 1;
    const p = document.createElement("p");
    p.className = "alert amber";
    p.dataset.refused = r.who;
    p.textContent = refusalWords(r);
    rows.push(p);
  }
  box.replaceChildren(...rows);
  const needs = red === 1 ? "needs" : "need"; // red and amber: each wants the director
  $("summary").textContent = `${count(boards.size, "board")} · ${red} ${needs} attention · ${offline} offline · ${count(over, "game")} over`
    + brokerWords();
}
setInterval(refreshAlerts, 1000);

// What the broker refused (club --broker-log): a login publishing or reading where its ACL
// does not let it, a wrong password, a second client with one login. Shown for half an hour.
const REFUSALS_SHOWN = 1800;
let refusals = [];
function refusalWords(r) {
  const at = time(r.at);
  if (r.kind === "login") return `the broker refused a login at ${at} (${r.who}): a wrong password, or someone who has none`;
  if (r.kind === "taken-over") return `the broker closed ${r.who}'s connection at ${at} for another client with the same login: a second referee running as ${r.who}, or its login used elsewhere`;
  const what = r.kind === "publish" ? "publishing on" : "reading";
  return `the broker refused ${r.who} ${what} ${r.topic} at ${at}: only the board with that name may (its login is its board id; docs/mqtt.md)`;
}

// The broker's own outage, said once for the club (never as each board's fault).
function brokerWords() {
  if (!outage) return "";
  if (outage.back == null) return ` · the broker has been away since ${time(outage.lost)}: the boards' last states are shown`;
  if (Date.now() / 1000 - outage.back >= RECONNECT_GRACE) return "";
  const waiting = [...boards.values()].filter(brokers).length;
  return ` · the broker was away ${time(outage.lost)}–${time(outage.back)}` +
    (waiting ? `: ${count(waiting, "board")} reconnecting` : "");
}

async function loadResults() {
  const response = await fetch("/api/results");
  if (!response.ok) return;
  const { results } = await response.json();
  const seen = JSON.stringify(results.map((r) => [r.board, r.game_number, r.outcome, r.timeline, r.review]));
  if (seen === resultsShown) return;
  resultsShown = seen;
  loadStandings();
  const body = $("results").tBodies[0];
  body.replaceChildren();
  for (const r of [...results].reverse()) {
    const tr = body.insertRow();
    const when = new Date(r.ended);
    const ended = r.ended && !Number.isNaN(when.getTime())
      ? `${when.toLocaleDateString([], { day: "numeric", month: "short" })} ${when.toLocaleTimeString([], { hour12: false, hour: "2-digit", minute: "2-digit" })}` : "";
    const people = r.people || ["", ""];
    const players = (r.players || []).map((side, i) => people[i] ? `${people[i]} (${side})` : side).join(" against ");
    const labels = ["Board", "Game", "Players", "Result", "Moves", "Ended"];
    [r.board, `${r.title} (game ${r.game_number})`, players, r.outcome || r.status, r.moves, ended].forEach((text, i) => {
      const td = tr.insertCell();
      td.textContent = text;
      td.dataset.label = labels[i];
    });
    const links = tr.insertCell();
    links.dataset.label = "Record";
    const link = document.createElement("a");
    link.href = `/records/${encodeURIComponent(r.board)}/${r.game_number}`;
    link.textContent = "record";
    link.target = "_blank";
    links.append(link);
    if (r.timeline) {  // only where the club holds it: never a link to an error
      const line = document.createElement("a");
      line.href = `/board/${encodeURIComponent(r.board)}/#timeline=${r.game_number}`;
      line.textContent = "timeline";
      links.append(" · ", line);
    }
    if (r.review) {  // the board's published review of it
      const review = document.createElement("a");
      review.href = `/board/${encodeURIComponent(r.board)}/review/${r.game_number}`;
      review.textContent = "review";
      links.append(" · ", review);
    }
  }
  $("no-results").hidden = results.length > 0;
}

// -- standings: an evening (a date range) by person, from the boards' results ----------------
function localDay(d) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function points(p) {
  const whole = Math.floor(p), half = p - whole >= 0.5;
  return (whole || !half ? String(whole) : "") + (half ? "½" : "");
}

async function loadStandings() {
  const query = new URLSearchParams();
  if ($("from").value) query.set("from", $("from").value);
  if ($("to").value) query.set("to", $("to").value);
  $("standings-csv").href = `/api/standings.csv?${query}`;
  const response = await fetch(`/api/standings?${query}`);
  if (!response.ok) return;
  const found = await response.json();
  const body = $("standings").tBodies[0];
  body.replaceChildren();
  const labels = ["#", "Player", "Games", "Won", "Drawn", "Lost", "Points", "Tie-break", "Score"];
  found.people.forEach((p) => {
    const tr = body.insertRow();
    [p.rank, p.person, p.games, p.won, p.drawn, p.lost, points(p.points), String(Math.round(p.tiebreak * 100) / 100), p.score ?? ""].forEach((text, i) => {
      const td = tr.insertCell();
      td.textContent = text;
      td.dataset.label = labels[i];
      if (i === 6) td.className = "points";
    });
  });
  $("no-standings").hidden = found.people.length > 0;
  $("unlike").hidden = !found.scores_unlike;
  $("unnamed").hidden = !found.unnamed;
  $("unnamed").textContent = found.unnamed ? `${count(found.unnamed, "game")} without both players named ${found.unnamed === 1 ? "is" : "are"} not counted.` : "";
  const names = found.people.map((p) => p.person);
  const head = $("cross").tHead;
  head.replaceChildren();
  const hr = head.insertRow();
  for (const text of ["", ...names.map((n, i) => `${i + 1}`)]) {
    const th = document.createElement("th"); th.textContent = text; hr.appendChild(th);
  }
  const cross = $("cross").tBodies[0];
  cross.replaceChildren();
  names.forEach((name, i) => {
    const tr = cross.insertRow();
    const th = document.createElement("th"); th.textContent = `${i + 1} ${name}`; tr.appendChild(th);
    for (const other of names) {
      const td = tr.insertCell();
      if (other === name) { td.className = "self"; continue; }
      td.textContent = (found.cross[name][other] || []).map(points).join(" ");
    }
  });
}
for (const id of ["from", "to"]) $(id).addEventListener("change", loadStandings);
$("tonight").addEventListener("click", () => { $("from").value = $("to").value = localDay(new Date()); loadStandings(); });
$("all-dates").addEventListener("click", () => { $("from").value = $("to").value = ""; loadStandings(); });
$("from").value = $("to").value = localDay(new Date()); // this evening, by default

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
    outage = club.broker_outage || null;
    refusals = club.broker_refusals || [];
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
