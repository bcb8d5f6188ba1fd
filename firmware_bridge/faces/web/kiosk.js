// The kiosk page: live state pushed by the referee (Server-Sent Events), the board drawn from
// the game's geometry, what to do now, and the controls a club needs without a terminal.
import { BoardView, legend, boardKey } from "/static/board.js";
import { token } from "/static/token.js";

const $ = (id) => document.getElementById(id);
// The same page serves the kiosk (API at /api) and a board's page in the club view (its own
// API path; only take back and new game, and a way back to all boards).
const API = document.body.dataset.api || "/api";
const CLUB = document.body.dataset.face === "club";
if (CLUB) {
  for (const id of ["btn-pass", "btn-confirm", "btn-select", "btn-check"]) $(id).hidden = true;
  $("club-link").hidden = false;
  $("results-link").hidden = true; // the club's results are on its front page
}

// Shown by the kiosk screen beside the board (?screen=1): no mouse arrow over the page.
if (new URLSearchParams(location.search).has("screen")) document.body.classList.add("screen");

const view = new BoardView($("board"));
let games = [];
let current = null;
let keyFor = "";

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
    $("conn").textContent = "referee offline";
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

function render(s) {
  current = s;
  view.setBoard(s.board);
  // In the board check only its lit cell matters: the game's pieces are off the board.
  view.render(s.check ? { pieces: [], signals: s.signals, last: [], lifted: [], unexpected: [], ghosts: [] } : {
    pieces: s.pieces, signals: s.signals, last: s.last_move, lifted: s.lifted,
    unexpected: s.unexpected, ghosts: s.ghosts,
  });
  const options = Object.entries(s.game.options).map(([k, v]) => `${k}=${v}`).join(", ");
  $("title").textContent = s.game.title;
  $("title").title = `${options} · board profile ${s.game.profile} · game ${s.game_number}`;
  document.title = CLUB ? `${document.body.dataset.board}: ${s.game.title} — club view`
    : `${s.game.title} — Board Referee`;
  if (CLUB) $("title").textContent = `${document.body.dataset.board}: ${s.game.title}`;
  $("record-link").href = `${API}/record/${s.game_number}`;
  const c = s.connection;
  $("conn").className = `conn ${c.state}`;
  $("conn").textContent = c.state === "connected" ? `board ${c.board_id}` : c.state.replace("-", " ");
  const status = $("status");
  status.textContent = s.outcome ? `Game over: ${s.outcome}` : capitalise(s.status);
  // Once a game is over: the set-up to do, which starts the next game.
  $("next").hidden = !(s.outcome && s.next_game);
  $("next").textContent = s.outcome ? capitalise(s.next_game || "") + "." : "";
  if (s.board.key !== keyFor) { keyFor = s.board.key; boardKey($("key"), s.board); }
  status.className = "status" + (s.outcome ? " over" : "") +
    (/illegal|disturbed|connect the board/.test(s.status) ? " alert" : "");
  $("notice").textContent = s.notice ? capitalise(s.notice) : "";
  renderPlayers(s);
  $("details").textContent = s.details.join(" · ") + (s.phase && !s.outcome ? `${s.details.length ? " · " : ""}phase: ${s.phase}` : "");
  legend($("legend"), s.signals);
  renderMoves(s.moves);
  renderConnection(c);
  for (const id of ["btn-pass", "btn-confirm", "btn-select"]) $(id).disabled = Boolean(s.outcome);
  $("btn-takeback").disabled = s.moves.length === 0;
  renderCheck(s.check);
  const warnings = s.sensor_warnings || [];
  $("sensor-warnings").hidden = !warnings.length;
  $("sensor-warnings").textContent = warnings.map((w) => capitalise(w.text) + ".").join(" ");
  // An open timeline of this game follows it: a move made meanwhile is fetched in.
  if ($("timeline").open && timeline && timeline.game === s.game_number &&
      s.moves.length !== followed) {
    followed = s.moves.length;
    if (made(timeline) !== followed) refreshTimeline(followed);
  }
  document.body.dataset.serial = String(s.serial);
  document.body.dataset.game = s.game.id;
}

function capitalise(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}

// The board check: what to do at the board now, how far it is, and what it found.
function renderCheck(check) {
  const box = $("check");
  box.hidden = !check || CLUB;
  document.body.classList.toggle("checking", Boolean(check) && !CLUB);
  $("players").hidden = Boolean(check) && !CLUB;
  for (const id of ["btn-takeback", "btn-pass", "btn-confirm", "btn-select", "btn-newgame", "btn-check"]) {
    if (check) $(id).disabled = true;
  }
  if (!check || CLUB) return;
  const running = check.phase !== "done";
  $("check-progress").textContent = `${check.done} of ${check.total}`;
  $("check-instruction").textContent = check.instruction;
  $("check-answers").hidden = !running || check.phase === "clear";
  $("check-stop").textContent = running ? "Stop the check" : "Back to the game";
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

function renderPlayers(s) {
  const box = $("players");
  box.replaceChildren();
  // The player highlighted is the one whose hands the status asks for (a defender taking
  // the attacker, a captured piece to remove), else the one to move.
  const acting = s.acting ?? s.to_move;
  s.game.players.forEach((name, index) => {
    const owner = index + 1;
    const row = document.createElement("div");
    row.className = `player owner-${owner}` + (acting === owner ? " turn" : "");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    const label = document.createElement("span");
    const people = (s.game.people || [])[index];
    label.textContent = (people ? `${people} (${name})` : name) +
      (acting === owner ? (acting !== s.to_move ? " — to act" : s.deciding ? " — chooses" : " — to move") : "") +
      (s.winner === owner ? " — winner" : "");
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = s.scores ? `score ${s.scores[index]}` : "";
    row.append(swatch, label, score);
    const lost = s.captured[index];
    if (lost.length) {
      const cap = document.createElement("span");
      cap.className = "captured";
      cap.textContent = `lost ${lost.length}: ${lost.join(" ")}`;
      row.appendChild(cap);
    }
    box.appendChild(row);
  });
}

function renderMoves(moves) {
  const list = $("moves");
  list.replaceChildren();
  for (const m of moves) {
    const li = document.createElement("li");
    li.value = m.number;
    li.textContent = `${m.player}: ${m.text}`;
    const t = document.createElement("span");
    t.className = "time";
    t.textContent = time(m.at);
    li.appendChild(t);
    if (m.events.length) {
      const ev = document.createElement("span");
      ev.className = "events";
      ev.textContent = m.events.join("; ");
      li.appendChild(ev);
    }
    list.appendChild(li);
  }
  list.scrollTop = list.scrollHeight;
}

function renderConnection(c) {
  const rows = [
    ["state", c.message], ["port", c.port], ["board id", c.board_id || "—"],
    ["firmware", c.firmware || "—"],
    ["last frame", c.last_frame ? `${Math.max(0, Math.round(Date.now() / 1000 - c.last_frame))} s ago` : "none yet"],
  ];
  const dl = $("conn-details");
  dl.replaceChildren();
  for (const [k, v] of rows) {
    const dt = document.createElement("dt"); dt.textContent = k;
    const dd = document.createElement("dd"); dd.textContent = v;
    dl.append(dt, dd);
  }
  for (const f of c.faults) {
    const dt = document.createElement("dt"); dt.textContent = "fault"; dt.className = "fault";
    const dd = document.createElement("dd"); dd.className = "fault";
    dd.textContent = `${f.code}: ${f.text} (${new Date(f.at * 1000).toLocaleTimeString([], { hour12: false })})`;
    dl.append(dt, dd);
  }
  if (c.faults.length) $("connection").open = true;
}
setInterval(() => { if (current) renderConnection(current.connection); }, 1000);

// -- controls ---------------------------------------------------------------------------------
async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Board-Referee-Token": token() },
    body: JSON.stringify(body),
  });
  let answer = {};
  try { answer = await response.json(); } catch { answer = { error: response.statusText }; }
  return { ok: response.ok, message: answer.message || answer.error || "" };
}

for (const button of document.querySelectorAll("[data-button]")) {
  button.addEventListener("click", async () => {
    const result = await (button.dataset.button === "takeback"
      ? post(`${API}/takeback`, {})
      : post(`${API}/button`, { button: button.dataset.button }));
    $("notice").textContent = capitalise(result.message);
    $("notice").classList.toggle("error", !result.ok);
  });
}

for (const button of document.querySelectorAll("[data-check]")) {
  button.addEventListener("click", async () => {
    const result = await post(`${API}/check`, { what: button.dataset.check });
    if (!result.ok) {
      $("notice").textContent = capitalise(result.message);
      $("notice").classList.add("error");
    }
  });
}
$("btn-check").addEventListener("click", () => {
  $("check-error").textContent = "";
  $("checkdialog").showModal();
});
$("check-cancel").addEventListener("click", () => $("checkdialog").close());
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

async function loadGames() {
  try {
    const response = await fetch(`${API}/games`);
    const answer = await response.json();
    games = answer.games;
    if (CLUB) { // offer take back and new game only where the board's referee takes them
      const takes = answer.commands === true;
      $("btn-takeback").hidden = !takes;
      $("btn-newgame").hidden = !takes;
      $("no-commands").hidden = takes;
    }
  } catch { /* offline: the next reconnect tries again */ }
}

function optionField(spec, value) {
  const label = document.createElement("label");
  label.className = `option option-${spec.type}`;
  const words = document.createElement("span");
  words.className = "option-label";
  words.textContent = spec.label || spec.name;
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
  if (spec.type === "bool") label.append(input, words); else label.append(words, input);
  return label;
}

function fillOptions() {
  const game = games.find((g) => g.id === $("ng-game").value);
  const box = $("ng-options");
  box.replaceChildren();
  const players = $("ng-players");
  const typed = [...players.querySelectorAll("input")].map((i) => i.value);
  players.replaceChildren();
  if (!game) return;
  // Who plays which side: kept with the game, shown on the kiosk, in records and results.
  game.players.forEach((side, index) => {
    const label = document.createElement("label");
    label.className = "option";
    const words = document.createElement("span");
    words.className = "option-label";
    words.textContent = `${side}: name`;
    const input = document.createElement("input");
    input.name = `player-${index + 1}`;
    input.maxLength = 40;
    input.autocomplete = "off";
    input.placeholder = "(optional)";
    input.value = typed[index] ?? ((current && current.game.people) ? current.game.people[index] || "" : "");
    label.append(words, input);
    players.appendChild(label);
  });
  for (const spec of game.options) {
    const same = current && current.game.id === game.id;
    box.appendChild(optionField(spec, same ? current.game.options[spec.name] : spec.default));
  }
}

$("btn-newgame").addEventListener("click", async () => {
  if (!games.length) await loadGames();
  const select = $("ng-game");
  select.replaceChildren(...games.map((g) => new Option(g.title, g.id)));
  if (current) select.value = current.game.id;
  $("ng-players").replaceChildren();
  fillOptions();
  $("ng-error").textContent = "";
  // Starting over a game in progress abandons it: say so, and ask once more.
  const playing = current && !current.outcome && current.moves.length > 0;
  $("ng-abandon").hidden = !playing;
  $("ng-abandon").textContent = playing
    ? `The game in progress (${current.moves.length} move${current.moves.length === 1 ? "" : "s"}) will be abandoned.`
    : "";
  $("ng-start").textContent = playing ? "Abandon it and start" : "Start";
  $("newgame").showModal();
});
$("ng-game").addEventListener("change", fillOptions);
$("ng-cancel").addEventListener("click", () => $("newgame").close());
$("newgame-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const options = {};
  for (const input of $("ng-options").querySelectorAll("[name]")) {
    options[input.name] = input.dataset.type === "bool" ? input.checked
      : input.dataset.type === "int" ? Number(input.value) : input.value;
  }
  const people = [...$("ng-players").querySelectorAll("input")].map((i) => i.value.trim());
  const result = await post(`${API}/new-game`, { game: $("ng-game").value, options, players: people });
  if (result.ok) {
    $("newgame").close();
    $("notice").textContent = capitalise(result.message);
  } else {
    $("ng-error").textContent = capitalise(result.message);
  }
});

// -- the timeline: the moves, and under each what the board and the referee said ------------
const KINDS = { sensor: "Sensor", scan: "Board", leds: "Lights", shown: "Shown", board: "Board",
  button: "Button", takeback: "Take-back", result: "Result", referee: "Referee", move: "Move",
  gap: "…" };
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
      const answer = await response.json();
      if (!$("timeline").open || answer.game !== timeline.game) return;
      timeline = answer;
      renderTimeline();
      if (made(answer) < wanted && tries > 1) refreshTimeline(wanted, tries - 1);
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
  $("tl-title").textContent = `Game ${number}: loading…`;
  $("tl-steps").replaceChildren();
  $("tl-rows").replaceChildren();
  $("tl-step-title").textContent = "";
  if (!dialog.open) dialog.showModal();
  let answer;
  try {
    const response = await fetch(`${API}/timeline/${number}`);
    answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
  } catch (error) {
    $("tl-title").textContent = `Game ${number}`;
    $("tl-problem").hidden = false;
    $("tl-problem").textContent = `No timeline: ${error.message}`;
    setArrows(number);
    return;
  }
  timeline = answer;
  renderTimeline();
  if (followed !== null && made(answer) < followed) refreshTimeline(followed);
}

function setArrows(number) {
  $("tl-prev").disabled = number <= 1;
  $("tl-next").disabled = !current || number >= current.game_number;
  $("tl-prev").onclick = () => openTimeline(number - 1);
  $("tl-next").onclick = () => openTimeline(number + 1);
}

function renderTimeline() {
  const t = timeline;
  $("tl-title").textContent = `Game ${t.game}: ${t.title} (${t.status}) — ${t.steps.length} move${t.steps.length === 1 ? "" : "s"}`;
  setArrows(t.game);
  const problem = t.problem || (t.recorded ? "" : "nothing of this game's flight recording is in the journal yet (it is written with each move and every 10 s), or recording is off (--record-cap 0) or dropped it: its moves only");
  $("tl-problem").hidden = !problem;
  $("tl-problem").textContent = problem;
  const list = $("tl-steps");
  list.replaceChildren();
  const groups = t.steps.map((step) => ({ step, label: step.move, key: `m${step.number}` }));
  if (t.tail.events.length) groups.push({ step: t.tail, label: "Since the last move", key: "tail" });
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
      who.textContent = step.player + (step.recorded ? "" : " · before the recording");
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
  else $("tl-step-title").textContent = "Nothing was recorded of this game yet.";
}

function showStep(group) {
  const { step } = group;
  shownStep = group.key;
  for (const b of $("tl-steps").querySelectorAll("button")) {
    b.setAttribute("aria-current", String(b.dataset.step === group.key));
  }
  $("tl-step-title").textContent = step.number
    ? `Move ${step.number}: ${step.player ? step.player + ", " : ""}${step.move}${step.at ? " at " + clock(step.at) : ""}${step.taken_back ? " (taken back)" : ""}`
    : "Since the last move";
  const rows = $("tl-rows");
  rows.replaceChildren();
  if (!step.events.length) {
    const tr = rows.insertRow();
    tr.insertCell().textContent = step.recorded ? "Nothing recorded under this move." : "Played before the recording began: the move only.";
  }
  for (const e of step.events) {
    const tr = rows.insertRow();
    tr.className = e.kind + (e.kind === "shown" && /illegal/.test(e.text) ? " illegal" : "");
    const t = tr.insertCell(); t.className = "t"; t.textContent = clock(e.at, true);
    const k = tr.insertCell(); k.className = "k"; k.textContent = KINDS[e.kind] || e.kind;
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
