// The language switch keeps the reader's place: the pages of both languages use the same heading ids
// ({ #id } in the sources), so a link to the other language takes the current #anchor along. Material's own
// handler would look the page up in the sitemap and drop the anchor; with an anchor, this one goes first.
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest(".md-select a[hreflang]")
  if (!link || !location.hash || event.metaKey || event.ctrlKey || event.shiftKey) return
  var target = new URL(link.href, location.href)
  target.hash = location.hash
  event.preventDefault()
  event.stopPropagation()
  location.assign(target.href)
}, true)
