// The access token for the controls: taken from ?token= once, kept in this origin's storage
// (the kiosk, the club view and its board pages share it), and dropped from the address bar,
// so it stays out of history, bookmarks and screenshots.
const KEY = "board-referee-token";
const params = new URLSearchParams(location.search);
if (params.has("token")) {
  const given = params.get("token");
  if (given) localStorage.setItem(KEY, given);
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : "") + location.hash);
}

export const token = () => localStorage.getItem(KEY) || "";
