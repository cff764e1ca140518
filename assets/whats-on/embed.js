// In the programme's page framed by a cinema's own page (/whats-on?embed=1): tells the framing
// page how tall this one is, whenever that changes, so that the frame fits it with no scroll bar
// of its own (frame.js, on the framing page, does the fitting). The height is no secret: any page
// may hear it.
(() => {
  if (window.parent === window) return;
  let told = 0;
  const tell = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === told) return;
    told = height;
    window.parent.postMessage({ marquee: 'height', height }, '*');
  };
  new ResizeObserver(tell).observe(document.documentElement);
  window.addEventListener('load', tell);
})();
