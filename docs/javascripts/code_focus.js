// A notebook page's code cell scrolls sideways where a line is longer than the column (docs/stylesheets/extra.css:
// code never wraps). A box that scrolls takes the keyboard focus, so that the arrow keys scroll it (axe:
// scrollable-region-focusable). Material does this for the pages' code blocks (`pre > code`); a notebook's cells
// are bare `pre`s, which it leaves alone. A cell that fits takes no focus of its own.
(() => {
  const cells = document.querySelectorAll(".jupyter-wrapper :is(.highlight-ipynb, .highlight) > pre");
  if (!cells.length || typeof ResizeObserver === "undefined") return;
  const observer = new ResizeObserver(entries => {
    for (const { target: pre } of entries) {
      if (pre.scrollWidth > pre.clientWidth + 1) pre.setAttribute("tabindex", "0");
      else pre.removeAttribute("tabindex");
    }
  });
  cells.forEach(pre => observer.observe(pre));
})();
