// A page that was split (docs/data/moved_sections.yml) still receives links to the sections it lost: opened at
// such an #anchor, it goes on to the page that has that section now, anchor kept (docs/hooks/moved_sections.py
// computes the addresses, docs/overrides/main.html writes them). An anchor the page still has is left alone.
(() => {
  const holder = document.getElementById("moved-sections")
  if (!holder) return
  const moved = JSON.parse(holder.textContent)
  const follow = () => {
    const anchor = decodeURIComponent(location.hash.slice(1))
    if (!anchor || document.getElementById(anchor) || !(anchor in moved)) return
    const target = new URL(moved[anchor], location.href)
    target.hash = location.hash
    location.replace(target.href)
  }
  follow()
  window.addEventListener("hashchange", follow)
})()
