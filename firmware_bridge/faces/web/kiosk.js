// The kiosk page: live state pushed by the referee (Server-Sent Events), the board drawn from
// the game's geometry, what to do now, and the controls a club needs without a terminal.
// Made for a 7" 800x480 touchscreen: text of 14 px and more, targets of 44 px and more, the
// latest moves always in view, and every control that fails saying why on the screen.
// Its words come from the referee (/words.js, made from firmware_bridge/words.py).
import { BoardView, legend, boardKey, clockText } from "/static/board.js";
import { token } from "/static/token.js";
import { say, applyWords } from "/static/say.js";

const $ = (id) => document.getElementById(id);
// The same page serves the kiosk (API at /api) and a board's page in the club view (its own
// API path; only take back and new game, and a way back to all boards).
const API = document.body.dataset.api || "/api";
const CLUB = document.body.dataset.face === "club";
const ANSWER_SECONDS = 12; // an answer to a control stays this long, then the referee's notice
applyWords(document);
if (CLUB) {
  for (const id of ["btn-pass", "btn-confirm", "btn-select", "btn-check", "btn-resign", "btn-draw"]) $(id).hidden = true;
  $("club-link").hidden = false;
  $("results-link").hidden = true; // the club's results are on its front page
}

// Shown by the kiosk screen beside the board (?screen=1): no mouse arrow over the page.
if (new URLSearchParams(location.search).has("screen")) document.body.classList.add("screen");

const view = new BoardView($("board"));
let games = [];
let current = null;
let keyFor = "";
let answer = null; // {text, error, until}: the answer to the last control pressed here
let timelineAsked = false;

// -- live state -------------------------------------------------------------------------------
function connect() {
  const source = new EventSource(`${API}/events`);
  source.addEventListener("state", (event) => {
    $("banner").hidden = true;
    render(JSON.parse(event.data));
  });
  source.onopen = () => { $("banner").hidden = true; loadGames(); };
  source.onerror = () => {
    $("banner").hidden = false;
    $("conn").className = "conn offline";
    $("conn").textContent = say("conn_offline");
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      setTimeout(connect, 1000); // the browser gave up: start again
    }
  };
}

function time(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleTimeString([], { hour12: false });
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

function sideAndPerson(s, index) {
  const person = (s.game.people || [])[index];
  const side = s.game.players[index];
  return person ? `${person} (${side})` : side;
}

function render(s) {
  current = s;
  settle(s);
  view.setBoard(s.board);
  // In the board check only its lit cell matters: the game's pieces are off the board.
  view.render(s.check ? { pieces: [], signals: s.signals, last: [], lifted: [], unexpected: [], ghosts: [] } : {
    pieces: s.pieces, signals: s.signals, last: s.last_move, lifted: s.lifted,
    unexpected: s.unexpected, ghosts: s.ghosts, misplaced: s.misplaced || [],
  });
  const options = Object.entries(s.game.options).map(([k, v]) => `${k}=${v}`).join(", ");
  $("title").textContent = CLUB ? `${document.body.dataset.board}: ${s.game.title}` : s.game.title;
  $("title").title = `${options} · ${s.game.profile} · ${s.game_number}`;
  document.title = CLUB ? `${document.body.dataset.board}: ${s.game.title}` : s.game.title;
  // The record as a page in this tab (a kiosk's browser has no tabs to close), with the way
  // back; in the club view its board's record page.
  $("record-link").href = CLUB ? `${API}/record/${s.game_number}` : `/record/${s.game_number}`;
  // A finished game's review (the engine's analysis, after the game): on the kiosk only.
  const reviewable = !CLUB && Boolean(s.outcome) && s.moves.length > 0;
  for (const id of ["review-now", "review-link"]) {
    $(id).href = `/review/${s.game_number}`;
    $(id).hidden = !reviewable;
  }
  const c = s.connection;
  $("conn").className = `conn ${c.state}`;
  $("conn").textContent = c.state === "connected" ? say("conn_connected", { id: c.board_id })
    : say(`conn_${c.state.replace("-", "_")}`) || c.state;
  const status = $("status");
  status.textContent = s.outcome ? s.outcome : capitalise(s.status);
  // Once a game is over: the set-up to do, which starts the next game.
  $("next").hidden = !(s.outcome && s.next_game);
  $("next").textContent = s.outcome ? capitalise(s.next_game || "") + "." : "";
  if (s.board.key !== keyFor) { keyFor = s.board.key; boardKey($("key"), s.board); }
  status.className = "status" + (s.outcome ? " over" : "") + (s.alert ? " alert" : "");
  renderNotice();
  renderPlayers(s);
  renderClocks(s);
  $("details").textContent = (s.details || []).map(capitalise).join("\n");
  $("details").hidden = !(s.details || []).length;
  legend($("legend"), s.signals);
  renderMoves(s);
  renderConnection(c);
  renderButtons(s);
  renderCheck(s.check);
  const brief = s.sensor_brief || "";
  $("sensor-warnings").hidden = !brief;
  $("sensor-warnings").textContent = brief ? brief + "." : "";
  $("sensor-details").textContent = (s.sensor_warnings || []).map((w) => capitalise(w.text) + ".").join(" ");
  // An open timeline of this game follows it: a move made meanwhile is fetched in.
  if ($("timeline").open && timeline && timeline.game === s.game_number &&
      s.moves.length !== followed) {
    followed = s.moves.length;
    if (made(timeline) !== followed) refreshTimeline(followed);
  }
  fitStatus();
  // Opened as …/#timeline=N (the club's results link a game's timeline): opened once.
  const asked = /^#timeline=(\d+)$/.exec(location.hash);
  if (asked && !timelineAsked) { timelineAsked = true; openTimeline(Number(asked[1])); }
  document.body.dataset.serial = String(s.serial);
  document.body.dataset.game = s.game.id;
}

// The answer to a control pressed here stays for a while (a refusal must be read: "this
// control needs the access token", "passing is not allowed"). An answer that is no refusal
// ("took back …: put the board back", "new game …: set up the board") has had its moment
// once the game moves on after it: the board put back, the first piece placed.
function moment(s) {
  return `${s.game_number}|${s.moves.length}|${s.status}|${s.notice || ""}|${s.outcome || ""}`;
}

function settle(s) {
  if (!answer || answer.error) return;
  if (answer.serial && s.serial < answer.serial) return;  // a state from before the answer
  const now = moment(s);
  const notice = capitalise(s.notice || "");
  if (notice === answer.text) { answer.effect = now; answer.noticed = true; return; }
  if (answer.noticed) { answer = null; return; }  // the referee's own notice of it has gone
  // The referee said which state first shows what the control did: that is its effect, and
  // the next change is the game moving on ("looking for a good move…" goes with the hint).
  if (answer.serial && answer.effect === undefined) { answer.effect = now; return; }
  if (answer.baseline === null) answer.baseline = now;
  else if (answer.effect === undefined) { if (now !== answer.baseline) answer.effect = now; }
  else if (now !== answer.effect) answer = null;  // the game moved on after what it made
}

function tell(text, error, serial = 0) {
  answer = text ? { text: capitalise(text), error, until: Date.now() + ANSWER_SECONDS * 1000,
                    baseline: current ? moment(current) : null, serial } : null;
  if (answer && serial && current && current.serial >= serial) settle(current);
  renderNotice();
  fitStatus();
}

function renderNotice() {
  const box = $("notice");
  const mine = answer && Date.now() < answer.until ? answer : null;
  const text = mine ? mine.text : current && current.notice ? capitalise(current.notice) : "";
  box.textContent = text;
  box.hidden = !text;
  box.classList.toggle("error", Boolean(mine && mine.error));
}
setInterval(() => { if (answer && Date.now() >= answer.until) { answer = null; renderNotice(); fitStatus(); } }, 1000);

// What must happen now is read first: as large as the pane allows (20 px down to 14 px), so
// the whole sentence shows and the moves and the controls stay in view.
function fitStatus() {
  const side = $("side");
  const status = $("status");
  for (let size = 20; size >= 14; size -= 1) {
    status.style.fontSize = `${size}px`;
    if (side.scrollHeight <= side.clientHeight) break;
  }
}
window.addEventListener("resize", fitStatus);

function renderButtons(s) {
  const usable = new Set(s.buttons || []);
  const over = Boolean(s.outcome);
  for (const name of ["pass", "confirm", "select", "hint", "restart-computer"]) {
    $(`btn-${name}`).hidden = CLUB || !usable.has(name);
  }
  $("btn-takeback").disabled = s.moves.length === 0;
  $("btn-resign").disabled = over || s.moves.length === 0 || Boolean(s.check);
  $("btn-draw").disabled = over || s.moves.length === 0 || Boolean(s.check);
}

// The clocks: the snapshot's figures, the running one counted down here between snapshots
// (from when the snapshot arrived), as a clock shows them (tenths under ten seconds).
let clocksAt = 0;

function renderClocks(s) {
  const box = $("clocks");
  const c = s.clocks;
  box.hidden = !c;
  $("btn-clock").hidden = !c;
  if (!c) return;
  clocksAt = performance.now();
  tickClocks();
}

function tickClocks() {
  const s = current;
  const c = s && s.clocks;
  if (!c) return;
  const live = c.running && !c.paused && !c.held && !c.flagged && !s.outcome;
  const spent = live ? performance.now() - clocksAt : 0;
  for (const node of document.querySelectorAll("#clocks .clock")) {
    const player = Number(node.dataset.player);
    const left = c.left_ms[player - 1] - (live && c.running === player ? spent : 0);
    node.querySelector(".side").textContent = sideAndPerson(s, player - 1);
    node.querySelector(".time").textContent = clockText(left);
    node.classList.toggle("running", c.running === player && !s.outcome);
    node.classList.toggle("low", left <= 20000);
    node.classList.toggle("flagged", c.flagged === player);
    node.querySelector(".mark").title = c.flagged === player ? say("clock_flag")
      : c.running === player ? say("clock_running") : "";
  }
  $("clock-note").textContent = c.paused ? say("clock_paused") : c.held ? say("clock_held")
    : !c.started ? `${say("clock_control", { control: c.control })}: ${say("clock_not_started")}`
    : say("clock_control", { control: c.control });
}
setInterval(tickClocks, 100);

function renderPlayers(s) {
  const box = $("players");
  box.replaceChildren();
  // The player highlighted is the one whose hands the status asks for (a defender taking
  // the attacker, a captured piece to remove), else the one to move.
  const acting = s.acting ?? s.to_move;
  s.game.players.forEach((_, index) => {
    const owner = index + 1;
    const row = document.createElement("div");
    row.className = `player owner-${owner}` + (acting === owner ? " turn" : "");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    const label = document.createElement("span");
    label.className = "who";
    const doing = acting === owner
      ? (acting !== s.to_move ? say("to_act") : s.deciding ? say("chooses") : say("to_move")) : "";
    label.textContent = sideAndPerson(s, index) + (doing ? ` — ${doing}` : "") +
      (s.winner === owner ? ` — ${say("winner")}` : "");
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = s.scores ? say("score", { score: s.scores[index] }) : "";
    row.append(swatch, label, score);
    const lost = (s.lost || [])[index];
    if (lost) {
      const cap = document.createElement("span");
      cap.className = "captured";
      cap.textContent = lost;
      row.appendChild(cap);
    }
    box.appendChild(row);
  });
}

function renderMoves(s) {
  const list = $("moves");
  list.replaceChildren();
  for (const m of s.moves) {
    const li = document.createElement("li");
    li.value = m.number;
    const what = document.createElement("span");
    what.className = "what";
    what.textContent = `${m.who || m.player}: ${m.words || m.text}`;
    const t = document.createElement("span");
    t.className = "time";
    t.textContent = time(m.at);
    li.append(what, t);
    if (m.events.length) {
      const ev = document.createElement("span");
      ev.className = "events";
      ev.textContent = m.events.join("; ");
      li.appendChild(ev);
    }
    list.appendChild(li);
  }
  list.hidden = s.moves.length === 0 || Boolean(s.check);
  list.scrollTop = list.scrollHeight; // the latest move in view
}

function renderConnection(c) {
  const rows = [
    [say("conn_state"), c.message], [say("conn_port"), c.port], [say("conn_board"), c.board_id || "—"],
    [say("conn_firmware"), c.firmware || "—"],
    [say("conn_last_frame"), c.last_frame ? say("last_frame", { seconds: Math.max(0, Math.round(Date.now() / 1000 - c.last_frame)) }) : say("no_frame")],
  ];
  const dl = $("conn-details");
  dl.replaceChildren();
  for (const [k, v] of rows) {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v;
    dl.append(dt, dd);
  }
  for (const f of c.faults) {
    const dt = document.createElement("dt"); dt.textContent = say("conn_fault"); dt.className = "fault";
    const dd = document.createElement("dd"); dd.className = "fault";
    dd.textContent = `${f.code}: ${f.text} (${new Date(f.at * 1000).toLocaleTimeString([], { hour12: false })})`;
    dl.append(dt, dd);
  }
}
setInterval(() => { if (current && $("conndialog").open) renderConnection(current.connection); }, 1000);

// The board check: what to do at the board now, how far it is, and what it found.
function renderCheck(check) {
  const box = $("check");
  box.hidden = !check || CLUB;
  $("status").hidden = Boolean(check) && !CLUB; // the check's panel says what to do
  document.body.classList.toggle("checking", Boolean(check) && !CLUB);
  $("players").hidden = Boolean(check) && !CLUB;
  $("btn-takeback").disabled = $("btn-takeback").disabled || Boolean(check);
  for (const id of ["btn-newgame", "btn-check"]) $(id).disabled = Boolean(check);
  if (!check || CLUB) return;
  const running = check.phase !== "done";
  $("check-progress").textContent = say("check_progress", { done: check.done, total: check.total });
  $("check-instruction").textContent = check.instruction;
  $("check-answers").hidden = !running || check.phase === "clear";
  $("check-stop").textContent = running ? say("check_stop") : say("check_back");
  const list = $("check-findings");
  list.replaceChildren();
  for (const f of check.findings) {
    const li = document.createElement("li");
    li.className = `finding ${f.kind}`;
    const cell = document.createElement("strong");
    cell.textContent = f.cell;
    const seen = document.createElement("span");
    seen.textContent = ` ${f.seen}. `;
    const fix = document.createElement("span");
    fix.className = "fix";
    fix.textContent = capitalise(f.fix) + ".";
    li.append(cell, seen, fix);
    list.appendChild(li);
  }
}

// -- controls ---------------------------------------------------------------------------------
async function post(path, body) {
  let response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Board-Referee-Token": token() },
      body: JSON.stringify(body),
    });
  } catch {
    return { ok: false, message: say("no_answer") };
  }
  let reply = {};
  try { reply = await response.json(); } catch { reply = { error: response.statusText }; }
  return { ok: response.ok, message: reply.message || reply.error || response.statusText || "",
           serial: Number(reply.serial) || 0 };
}

for (const button of document.querySelectorAll("[data-button]")) {
  button.addEventListener("click", async () => {
    if (button.dataset.button === "takeback" && askTakeback()) return;
    const result = await (button.dataset.button === "takeback"
      ? post(`${API}/takeback`, {})
      : post(`${API}/button`, { button: button.dataset.button }));
    tell(result.message, !result.ok, result.serial);
  });
}

// A take-back is asked once more where it cannot be seen being put right, or where it undoes
// a result: from the club view (the director is not at the board), and whenever the game is
// over (it withdraws the result and reopens the game). At the board, in play, one touch.
function askTakeback() {
  if (!current || !(CLUB || current.outcome) || !current.moves.length) return false;
  const last = current.moves[current.moves.length - 1];
  const move = last.words || last.text;
  $("takeback-ask").textContent = say("takeback_ask", { move });
  $("takeback-more").textContent = current.outcome
    ? say("takeback_reopen", { move, result: current.outcome }) : say("takeback_far");
  $("takeback-error").textContent = "";
  openDialog("takeback");
  return true;
}
$("takeback-yes").addEventListener("click", async () => {
  const result = await post(`${API}/takeback`, {});
  if (result.ok) {
    $("takeback").close();
    tell(result.message, false, result.serial);
  } else {
    $("takeback-error").textContent = capitalise(result.message);
  }
});

// The computer's controls: a hint for the player to move, and its engine started again.
for (const button of document.querySelectorAll("[data-action]")) {
  button.addEventListener("click", async () => {
    const result = await post(`${API}/${button.dataset.action}`, {});
    tell(result.message, !result.ok, result.serial);
  });
}

for (const button of document.querySelectorAll("[data-check]")) {
  button.addEventListener("click", async () => {
    const result = await post(`${API}/check`, { what: button.dataset.check });
    if (!result.ok) tell(result.message, true);
  });
}

function openDialog(id) {
  if ($("menu").open) $("menu").close();
  $(id).showModal();
}
// The arbiter's clock controls (a dispute, a penalty): journaled with where they came from.
for (const button of document.querySelectorAll("[data-clock]")) {
  button.addEventListener("click", async () => {
    const body = { clock: button.dataset.clock };
    if (button.dataset.player) {
      body.player = Number(button.dataset.player);
      body.seconds = Number(button.dataset.seconds);
    }
    const result = await post(`${API}/clock`, body);
    $("clock-error").textContent = result.ok ? "" : capitalise(result.message);
    if (result.ok) tell(result.message, false, result.serial);
  });
}
$("btn-clock").addEventListener("click", () => {
  $("clock-error").textContent = "";
  for (const button of document.querySelectorAll("[data-clock=add]")) {
    const side = current ? sideAndPerson(current, Number(button.dataset.player) - 1) : "";
    const seconds = Number(button.dataset.seconds);
    button.textContent = say(seconds > 0 ? "clock_add" : "clock_take", { side, n: Math.abs(seconds) / 60 });
  }
  openDialog("clockdialog");
});
for (const [button, dialog] of [["btn-menu", "menu"], ["conn", "conndialog"], ["btn-connection", "conndialog"], ["btn-key", "keydialog"]]) {
  $(button).addEventListener("click", () => {
    if (dialog === "conndialog" && current) renderConnection(current.connection);
    openDialog(dialog);
  });
}
for (const [button, dialog] of [["menu-close", "menu"], ["key-close", "keydialog"], ["conn-close", "conndialog"],
  ["resign-cancel", "resign"], ["draw-cancel", "draw"], ["clock-close", "clockdialog"], ["takeback-cancel", "takeback"], ["check-cancel", "checkdialog"], ["ng-cancel", "newgame"]]) {
  $(button).addEventListener("click", () => $(dialog).close());
}
for (const link of ["record-link", "results-link", "review-link"]) $(link).addEventListener("click", () => $("menu").close());

$("btn-check").addEventListener("click", () => {
  $("check-error").textContent = "";
  openDialog("checkdialog");
});
$("check-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const cells = $("check-cells").value.split(/[\s,]+/).filter(Boolean);
  const result = await post(`${API}/check`, { what: "start", cells });
  if (result.ok) {
    $("checkdialog").close();
  } else {
    $("check-error").textContent = capitalise(result.message);
  }
});

// A result the players declare: asked once more, then journaled like a move (a take-back
// withdraws it).
$("btn-resign").addEventListener("click", () => {
  if (!current) return;
  for (const index of [0, 1]) {
    const other = sideAndPerson(current, 1 - index);
    const button = $(`resign-${index + 1}`);
    button.textContent = say("resign_yes", { who: sideAndPerson(current, index) });
    button.title = say("resign_means", { other });
  }
  $("resign-error").textContent = "";
  openDialog("resign");
});
for (const button of document.querySelectorAll("[data-resign]")) {
  button.addEventListener("click", async () => {
    const result = await post(`${API}/result`, { result: "resign", player: Number(button.dataset.resign) });
    if (result.ok) $("resign").close(); // the headline says the result
    else $("resign-error").textContent = capitalise(result.message);
  });
}
$("btn-draw").addEventListener("click", () => { $("draw-error").textContent = ""; openDialog("draw"); });
$("draw-yes").addEventListener("click", async () => {
  const result = await post(`${API}/result`, { result: "draw" });
  if (result.ok) $("draw").close();
  else $("draw-error").textContent = capitalise(result.message);
});

async function loadGames() {
  try {
    const response = await fetch(`${API}/games`);
    const reply = await response.json();
    games = reply.games;
    if (CLUB) { // offer take back and new game only where the board's referee takes them
      const takes = reply.commands === true;
      $("btn-takeback").hidden = !takes;
      $("btn-newgame").hidden = !takes;
      $("no-commands").hidden = takes;
    }
  } catch { /* offline: the next reconnect tries again */ }
}

// A form field: its words and its control in one label (a checkbox before its words).
function labelled(className, text, control) {
  const label = document.createElement("label");
  label.className = className;
  const words = document.createElement("span");
  words.className = "option-label";
  words.textContent = text;
  if (control.type === "checkbox") label.append(control, words); else label.append(words, control);
  return label;
}

function optionField(spec, value) {
  let input;
  if (spec.type === "choice") {
    input = document.createElement("select");
    for (const choice of spec.choices) input.add(new Option((spec.labels || {})[choice] || choice, choice));
    input.value = String(value);
  } else if (spec.type === "int") {
    input = document.createElement("input");
    input.type = "number";
    input.inputMode = "numeric";
    if (spec.min != null) input.min = spec.min;
    if (spec.max != null) input.max = spec.max;
    input.value = value;
  } else {
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = value === true || value === "true" || value === "True";
  }
  input.name = spec.name;
  input.dataset.type = spec.type;
  input.title = spec.doc;
  return labelled(`option option-${spec.type}`, spec.label || spec.name, input);
}

// ``same``: the last game's players, sides and names ("Same players" touched).
function fillOptions(same = false) {
  const game = games.find((g) => g.id === $("ng-game").value);
  const box = $("ng-options");
  box.replaceChildren();
  const players = $("ng-players");
  const typed = [...players.querySelectorAll("input[name^=player]")].map((i) => i.value);
  const sides = [...players.querySelectorAll("select.side")].map((i) => i.value);
  const thinks = players.querySelector("select.movetime")?.value;
  const hinting = players.querySelector("input.hints")?.checked;
  const clocked = players.querySelector("input.clock")?.value;
  players.replaceChildren();
  if (!game) return;
  // Who plays each side: a person, or the computer at a level (docs/engine.md). The
  // computer is a player like any, named "Computer, level N" in records and results. A new
  // game starts with nobody named (the next pair at a club is rarely the last): the last
  // game's players are one touch away ("Same players"), never filled in unseen.
  const people = same ? ((current && current.game.people) || ["", ""]) : ["", ""];
  const computerLevel = (name) => /^Computer, level ([1-5])$/.exec(name || "")?.[1] || "";
  game.players.forEach((side, index) => {
    const select = document.createElement("select");
    select.className = "side";
    select.name = `side-${index + 1}`;
    select.append(new Option(say("a_person"), ""));
    for (const level of LEVELS) {
      select.append(new Option(say("computer_level", level), String(level.level)));
    }
    select.value = same ? computerLevel(people[index]) : sides[index] ?? "";
    select.addEventListener("change", showNames);
    players.appendChild(labelled("option", say("played_by", { side }), select));
  });
  const movetime = document.createElement("select");
  movetime.className = "movetime";
  movetime.name = "movetime";
  for (const seconds of [1, 2, 5, 10, 30]) {
    movetime.append(new Option(say("seconds", { n: seconds }), String(seconds * 1000)));
  }
  movetime.value = thinks ?? "2000";
  players.appendChild(labelled("option computer-time", say("computer_time"), movetime));
  const allow = document.createElement("input");
  allow.type = "checkbox";
  allow.name = "hints";
  allow.className = "hints";
  allow.checked = hinting ?? true;
  players.appendChild(labelled("option option-bool", say("hints_allowed"), allow));
  // The clock (docs/clocks.md): the game on the board's time control offered, blank for none.
  const clock = document.createElement("input");
  clock.className = "clock";
  clock.name = "clock";
  clock.maxLength = 60;
  clock.autocomplete = "off";
  clock.placeholder = say("clock_none");
  clock.title = say("clock_how");
  clock.value = clocked ?? ((current && current.clocks && current.clocks.control) || "");
  players.appendChild(labelled("option clock-control", say("clock_field"), clock));
  // Who plays which side: kept with the game, shown on the kiosk, in records and results.
  // The names of the game on the board are offered (shown, to keep or change); a game
  // without names typed here has none.
  game.players.forEach((side, index) => {
    const input = document.createElement("input");
    input.name = `player-${index + 1}`;
    input.maxLength = 40;
    input.autocomplete = "off";
    input.placeholder = say("optional");
    const known = people[index] || "";
    input.value = same ? (computerLevel(known) ? "" : known) : typed[index] ?? "";
    players.appendChild(labelled("option person-name", say("name_of", { side }), input));
  });
  showNames();
  for (const spec of game.options) {
    const same = current && current.game.id === game.id;
    box.appendChild(optionField(spec, same ? current.game.options[spec.name] : spec.default));
  }
}

// The levels the computer plays at, 1 a beginner that slips on purpose to 5 full strength.
const LEVELS = [
  { level: 1, name: "beginner" }, { level: 2, name: "casual" }, { level: 3, name: "club player" },
  { level: 4, name: "strong" }, { level: 5, name: "full strength" },
];

// A side the computer plays has no name to type; the computer's time shows when it plays.
function showNames() {
  const box = $("ng-players");
  const sides = [...box.querySelectorAll("select.side")];
  box.querySelectorAll("label.person-name").forEach((label, index) => {
    label.hidden = Boolean(sides[index]?.value);
  });
  const time = box.querySelector("label.computer-time");
  if (time) time.hidden = !sides.some((s) => s.value);
}

$("ng-same").addEventListener("click", () => fillOptions(true));

$("btn-newgame").addEventListener("click", async () => {
  if (!games.length) await loadGames();
  const select = $("ng-game");
  select.replaceChildren(...games.map((g) => new Option(g.title, g.id)));
  if (current) select.value = current.game.id;
  $("ng-players").replaceChildren();
  fillOptions();
  const last = (current && current.game.people) || ["", ""];
  const named = last.some((p) => p);
  $("ng-same").hidden = !named;
  $("ng-same").textContent = named && current
    ? say("same_players", { who: current.game.players.map((side, i) => last[i] || side).join(" and ") }) : "";
  $("ng-error").textContent = "";
  // Starting over a game in progress abandons it: say so, and ask once more.
  const playing = current && !current.outcome && current.moves.length > 0;
  $("ng-abandon").hidden = !playing;
  $("ng-abandon").textContent = playing ? say("abandon", { moves: count(current.moves.length, "move") }) : "";
  $("ng-start").textContent = playing ? say("abandon_start") : say("start");
  openDialog("newgame");
});
$("ng-game").addEventListener("change", () => fillOptions());
$("newgame-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const options = {};
  for (const input of $("ng-options").querySelectorAll("[name]")) {
    options[input.name] = input.dataset.type === "bool" ? input.checked
      : input.dataset.type === "int" ? Number(input.value) : input.value;
  }
  const box = $("ng-players");
  const people = [...box.querySelectorAll("input[name^=player]")].map((i) => i.value.trim());
  const computer = {};
  box.querySelectorAll("select.side").forEach((select, index) => {
    if (select.value) computer[String(index + 1)] = Number(select.value);
  });
  const body = { game: $("ng-game").value, options, players: people,
    hints: box.querySelector("input.hints").checked,
    clock: box.querySelector("input.clock").value.trim() };
  if (Object.keys(computer).length) {
    body.computer = computer;
    body.movetime = Number(box.querySelector("select.movetime").value);
  }
  const result = await post(`${API}/new-game`, body);
  if (result.ok) {
    $("newgame").close();
    tell(result.message, false, result.serial);
  } else {
    $("ng-error").textContent = capitalise(result.message);
  }
});

function count(n, noun) {
  return say(n === 1 ? `one_${noun}` : `many_${noun}`, { n });
}

// -- the timeline: the moves, and under each what the board and the referee said ------------
let timeline = null;
let shownStep = null; // the key of the step shown, kept when the timeline is fetched again
let refreshing = null;
let followed = null; // the game's move count the open timeline was last fetched for

// The moves a timeline holds as the game stands (taken back ones left out).
function made(t) { return t.steps.filter((step) => !step.taken_back).length; }

// Fetch the open timeline again (the club view's copy may come a moment after the state).
function refreshTimeline(wanted, tries = 5) {
  if (refreshing) return;
  refreshing = setTimeout(async () => {
    refreshing = null;
    if (!$("timeline").open || !timeline) return;
    try {
      const response = await fetch(`${API}/timeline/${timeline.game}`);
      if (!response.ok) return;
      const reply = await response.json();
      if (!$("timeline").open || reply.game !== timeline.game) return;
      timeline = reply;
      renderTimeline();
      if (made(reply) < wanted && tries > 1) refreshTimeline(wanted, tries - 1);
    } catch { /* offline: the next state tries again */ }
  }, 500);
}

function clock(iso, exact) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const text = d.toLocaleTimeString([], { hour12: false });
  return exact ? `${text}.${String(d.getMilliseconds()).padStart(3, "0")}` : text;
}

async function openTimeline(number) {
  if (!number) return;
  shownStep = null;
  followed = current && current.game_number === number ? current.moves.length : null;
  const dialog = $("timeline");
  $("tl-title").textContent = say("tl_loading", { game: number });
  $("tl-steps").replaceChildren();
  $("tl-rows").replaceChildren();
  $("tl-step-title").textContent = "";
  if (!dialog.open) openDialog("timeline");
  let reply;
  try {
    const response = await fetch(`${API}/timeline/${number}`);
    reply = await response.json();
    if (!response.ok) throw new Error(reply.error || response.statusText);
  } catch (error) {
    $("tl-title").textContent = say("tl_game", { game: number });
    $("tl-problem").hidden = false;
    $("tl-problem").textContent = say("tl_none", { why: error.message });
    setArrows(number);
    return;
  }
  timeline = reply;
  renderTimeline();
  if (followed !== null && made(reply) < followed) refreshTimeline(followed);
}

function setArrows(number) {
  $("tl-prev").disabled = number <= 1;
  $("tl-next").disabled = !current || number >= current.game_number;
  $("tl-prev").onclick = () => openTimeline(number - 1);
  $("tl-next").onclick = () => openTimeline(number + 1);
}

function renderTimeline() {
  const t = timeline;
  $("tl-title").textContent = say("tl_title", { game: t.game, title: t.title, status: t.status, moves: count(t.steps.length, "move") });
  setArrows(t.game);
  const problem = t.problem || (t.recorded ? "" : say("tl_unrecorded"));
  $("tl-problem").hidden = !problem;
  $("tl-problem").textContent = problem;
  const list = $("tl-steps");
  list.replaceChildren();
  const groups = t.steps.map((step) => ({ step, label: step.words || step.move, key: `m${step.number}` }));
  if (t.tail.events.length) groups.push({ step: t.tail, label: say("tl_since"), key: "tail" });
  for (const group of groups.reverse()) { // newest first: the disputed move is near the top
    const { step } = group;
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.step = group.key;
    if (step.taken_back) button.classList.add("taken-back");
    const num = document.createElement("span"); num.className = "num";
    num.textContent = step.number ? String(step.number) : "";
    const move = document.createElement("span"); move.className = "move";
    move.textContent = group.label;
    const at = document.createElement("span"); at.className = "at";
    at.textContent = step.at ? clock(step.at) : "";
    button.append(num, move, at);
    if (step.player) {
      const who = document.createElement("span"); who.className = "who";
      who.textContent = step.player + (step.recorded ? "" : say("tl_before"));
      button.appendChild(who);
    }
    if (step.marks.length) {
      const marks = document.createElement("span"); marks.className = "marks";
      for (const mark of step.marks) {
        const tag = document.createElement("span");
        tag.className = `mark ${mark.replace(/\W+/g, "-")}`;
        tag.textContent = mark;
        marks.appendChild(tag);
      }
      button.appendChild(marks);
    }
    button.addEventListener("click", () => showStep(group));
    li.appendChild(button);
    list.appendChild(li);
  }
  list.scrollTop = 0;
  const kept = groups.find((g) => g.key === shownStep);
  if (groups.length) showStep(kept || groups.find((g) => g.step.number) || groups[0]);
  else $("tl-step-title").textContent = say("tl_nothing");
}

function showStep(group) {
  const { step } = group;
  shownStep = group.key;
  for (const b of $("tl-steps").querySelectorAll("button")) {
    b.setAttribute("aria-current", String(b.dataset.step === group.key));
  }
  $("tl-step-title").textContent = step.number
    ? say("tl_step", { number: step.number, who: step.player ? step.player + ", " : "", move: step.words || step.move,
      at: step.at ? say("tl_at", { time: clock(step.at) }) : "", back: step.taken_back ? say("tl_taken_back") : "" })
    : say("tl_since");
  const rows = $("tl-rows");
  rows.replaceChildren();
  if (!step.events.length) {
    const tr = rows.insertRow();
    tr.insertCell().textContent = step.recorded ? say("tl_empty") : say("tl_unrecorded_move");
  }
  for (const e of step.events) {
    const tr = rows.insertRow();
    tr.className = e.kind + (e.kind === "shown" && /illegal/.test(e.text) ? " illegal" : "");
    const t = tr.insertCell(); t.className = "t"; t.textContent = clock(e.at, true);
    const k = tr.insertCell(); k.className = "k"; k.textContent = say(`tl_kind_${e.kind}`) || e.kind;
    const x = tr.insertCell(); x.className = "x";
    if (e.cell && e.text.startsWith(e.cell + ":")) {
      const cell = document.createElement("span"); cell.className = "cell"; cell.textContent = e.cell;
      x.append(cell, document.createTextNode(e.text.slice(e.cell.length)));
    } else {
      x.textContent = e.text;
    }
  }
  $("tl-events").scrollTop = 0;
}

$("btn-timeline").addEventListener("click", () => openTimeline(current && current.game_number));
$("tl-close").addEventListener("click", () => $("timeline").close());

connect();
