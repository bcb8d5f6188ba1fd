// A game's review (/review/N, faces/review_page.py; the club view's /board/NAME/review/N): a
// turning point's position drawn with the kiosk's own board drawing, the better move asked
// onto the board's LEDs when the page opens, and taken off them on the way back to the board.
// Controls carry the access token, as the kiosk's do. No build step: an ES module.
import { BoardView } from "/static/board.js";
import { token } from "/static/token.js";

async function light(body) {
  try {
    const response = await fetch("/api/review/show", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Board-Referee-Token": token() },
      body: JSON.stringify(body),
    });
    const reply = await response.json().catch(() => ({}));
    return reply.message || reply.error || response.statusText || "";
  } catch {
    return "The referee did not answer.";
  }
}

// The club view's review (data-lights="off") is not at the board: it draws, never lights.
const lights = document.body.dataset.lights !== "off";
const svg = document.getElementById("board");
if (svg) {
  const shown = JSON.parse(svg.dataset.show);
  svg.classList.add("board");
  const view = new BoardView(svg);
  view.setBoard(JSON.parse(svg.dataset.board));
  view.render({ pieces: shown.pieces, signals: shown.signals });
  const lit = document.getElementById("lit");
  if (lights) {
    light({ game: shown.game, move: shown.move }).then((message) => {
      lit.textContent = message;
      document.body.dataset.lit = "yes";
    });
  }
}

// The way back takes the better move off the LEDs first: the board is the game's again.
const back = document.getElementById("back");
if (back && lights) {
  back.addEventListener("click", async (event) => {
    event.preventDefault();
    if (svg) await light({ clear: true });
    location.href = back.getAttribute("href");
  });
}
