// On a cinema's own page, beside the frame of its programme (/whats-on?embed=1): fits each frame
// to the height its page tells (embed.js). Only what this script's own server sends is heard.
(() => {
  const script = document.currentScript;
  if (!(script instanceof HTMLScriptElement)) return;
  const origin = new URL(script.src).origin;
  // Taller than any programme: a bound on what a message can do to the page.
  const MAX_HEIGHT = 100000;
  window.addEventListener('message', (event) => {
    const told = event.data;
    if (event.origin !== origin || told === null || typeof told !== 'object' || told.marquee !== 'height') return;
    const height = Number(told.height);
    if (!Number.isFinite(height) || height < 0) return;
    for (const frame of document.getElementsByTagName('iframe')) {
      if (frame.contentWindow === event.source) frame.style.height = `${Math.min(Math.ceil(height), MAX_HEIGHT)}px`;
    }
  });
})();
