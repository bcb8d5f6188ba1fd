// The pages' words: WORDS is served by the referee from firmware_bridge/words.py (/words.js),
// the one place every sentence a player reads is kept, so a translation changes that file alone.
import { WORDS } from "/words.js";

// A phrase with its {named} places filled in; "" for a phrase the referee does not have.
export function say(key, values = {}) {
  const text = WORDS[key];
  if (text === undefined) return "";
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

// Every element of ``root`` that names its words (data-say) or its tooltip (data-tip).
export function applyWords(root) {
  for (const node of root.querySelectorAll("[data-say]")) node.textContent = say(node.dataset.say);
  for (const node of root.querySelectorAll("[data-tip]")) node.title = say(node.dataset.tip);
}
