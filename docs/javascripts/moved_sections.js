// A page that was split (mkdocs.yml, extra.moved_sections) still receives links to the sections it lost: opened at
// such an #anchor, it goes on to the page that has that section now, anchor kept. The pages are siblings
// (use_directory_urls): ddp.md is ../ddp/ from any page of the same language. An anchor the page has is left alone.
(() => {
  const holder = document.getElementById("moved-sections")
  if (!holder) return
  const moved = JSON.parse(holder.textContent)
  const follow = () => {
    const anchor = decodeURIComponent(location.hash.slice(1))
    if (!anchor || document.getElementById(anchor) || !(anchor in moved)) return
    const target = new URL(`../${moved[anchor].replace(/\.md$/, "")}/`, location.href)
    target.hash = location.hash
    location.replace(target.href)
  }
  follow()
  window.addEventListener("hashchange", follow)
})()
