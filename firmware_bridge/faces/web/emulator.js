// The emulated board in a browser: every click is a physical action of the board emulator,
// which speaks the protocol to the referee over its pty like a real board.
import { BoardView, legend, drawPiece, SIGNALS } from "/static/board.js";
import { token } from "/static/token.js";

const $ = (id) => document.getElementById(id);
const view = new BoardView($("board"), onCell);
let state = null;
let picked = null; // {hand: index} or {piece: token}

function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("state", (event) => {
    $("banner").hidden = true;
    render(JSON.parse(event.data));
  });
  source.onopen = () => { $("banner").hidden = true; };
  source.onerror = () => {
    $("banner").hidden = false;
    $("conn").className = "conn offline";
    $("conn").textContent = "not running";
    if (source.readyState === EventSource.CLOSED) { source.close(); setTimeout(connect, 1000); }
  };
}

function pieceButton(piece, title, isPicked, onClick) {
  const button = document.createElement("button");
  button.title = title;
  button.dataset.token = piece.token;
  if (isPicked) button.classList.add("picked");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "-0.5 -0.5 1 1");
  svg.setAttribute("width", "40");
  svg.setAttribute("height", "40");
  drawPiece(svg, piece, 1.3);
  button.appendChild(svg);
  button.addEventListener("click", onClick);
  return button;
}

// The hand holds both players' pieces (a capture's: the player picks the one to put down).
function bothPlayers(hand) {
  return new Set(hand.map((p) => p.owner)).size > 1;
}

function render(s) {
  state = s;
  if (picked && picked.hand != null && picked.hand >= s.hand.length) picked = null;
  view.setBoard(s.board);
  view.render({ pieces: s.pieces, signals: s.signals });
  $("title").textContent = `${s.game.title} board`;
  // The referee is there when its page answers (the built-in board follows it) and it has
  // scanned the board; a referee gone (killed, restarting) is said as such, never green.
  const gone = s.referee === "gone";
  $("conn").className = "conn " + (!s.plugged || gone ? "offline" : s.host ? "connected" : "connecting");
  $("conn").textContent = !s.plugged ? "unplugged" : gone ? "no referee"
    : s.host ? "referee connected" : "waiting for the referee";
  $("btn-layout").hidden = s.referee === "none" || s.referee === undefined;
  $("btn-layout").disabled = !s.recorded;
  const names = Object.entries(s.signals);
  // The lights in words (what each asks), never by their two-letter tags.
  const bySignal = {};
  for (const [cell, sig] of names) (bySignal[sig] = bySignal[sig] || []).push(cell);
  // Each light's shape and tag as on the board, what it asks and where: the key and the
  // lights in words at once (one row each, not a line and a key that say it twice).
  if (names.length) legend($("leds"), s.signals, bySignal);
  else $("leds").textContent = "All lights off";
  // A real hand holds one player's piece. After a capture by replacement (or a capture's
  // victim taken off) it may hold both players' pieces: then nothing is picked for the player,
  // who clicks the piece to put down, so the captured piece never goes down by mistake.
  // Only a piece lifted since the last one was put down is picked by itself: one held from
  // before (a captured piece not yet in the box) goes down only when it is clicked.
  const mixed = bothPlayers(s.hand);
  const last = s.hand.length ? s.hand[s.hand.length - 1] : null;
  const defaultPick = last && last.fresh !== false && !mixed ? s.hand.length - 1 : null;
  const hand = $("hand");
  hand.replaceChildren();
  s.hand.forEach((p, i) => {
    const isPicked = picked ? picked.hand === i : i === defaultPick;
    hand.appendChild(pieceButton(p, `${p.kind} of player ${p.owner}` + (p.from ? `, from ${p.from}` : ""),
      isPicked, () => { picked = isPicked ? { none: true } : { hand: i }; render(state); }));
  });
  if (!s.hand.length) {
    const none = document.createElement("span");
    none.className = "empty";
    none.textContent = "nothing";
    hand.appendChild(none);
  }
  $("hand-help").hidden = !(mixed && !(picked && picked.hand != null));
  if (picked && picked.none && !s.hand.length) picked = null;
  const supply = $("supply");
  supply.replaceChildren();
  for (const p of s.supply) {
    const isPicked = picked != null && picked.piece === p.token;
    supply.appendChild(pieceButton(p, `a new ${p.kind} of player ${p.owner}`, isPicked,
      () => { picked = isPicked ? null : { piece: p.token }; render(state); }));
  }
  // Where the board is, for whoever connects a referee to it: one short line; the stable
  // path (long) on the connection's badge, touched or hovered.
  $("device").textContent = `${s.game.profile} board on ${s.device}`;
  $("conn").title = `stable path ${s.link}`;
  $("btn-unplug").disabled = !s.plugged;
  $("btn-replug").disabled = s.plugged;
  document.body.dataset.game = s.game.id;
}

async function act(body) {
  const response = await fetch("/api/action", {
    method: "POST", headers: { "Content-Type": "application/json", "X-Board-Referee-Token": token() },
    body: JSON.stringify(body),
  });
  let answer = {};
  try { answer = await response.json(); } catch { answer = {}; }
  $("notice").textContent = response.ok ? "" : (answer.error || response.statusText);
  return response.ok;
}

async function onCell(name) {
  if (!state) return;
  const occupied = state.pieces.some((p) => p.cell === name);
  if (occupied) {
    await act({ do: "lift", cell: name });
    picked = null;
  } else if (picked && picked.piece) {
    const piece = picked.piece;
    picked = null;  // one piece a pick: a second click on the board never places another
    await act({ do: "place", cell: name, piece });
  } else if (picked && picked.hand != null) {
    const index = picked.hand;
    picked = null;
    await act({ do: "place", cell: name, hand: index });
  } else if (state.hand.length) {
    const last = state.hand[state.hand.length - 1];
    if (bothPlayers(state.hand)) {
      $("notice").textContent = "Both players' pieces are in your hand: click the one to put down.";
      return;
    }
    if ((picked && picked.none) || last.fresh === false) {
      $("notice").textContent = "Click the piece in your hand to put it down (or leave it off the board).";
      return;
    }
    await act({ do: "place", cell: name, hand: state.hand.length - 1 });
  } else {
    $("notice").textContent = "Your hand is empty: lift a piece, or pick one from the box.";
  }
}

for (const button of document.querySelectorAll("[data-press]")) {
  button.addEventListener("click", () => act({ do: "press", button: button.dataset.press }));
}
for (const button of document.querySelectorAll("[data-do]")) {
  button.addEventListener("click", () => act({ do: button.dataset.do }));
}
connect();
