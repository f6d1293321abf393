/*
 * Material's search worker, run for one language of the site. docs/overrides/main.html starts it instead
 * of Material's; docs/hooks/search_index.py copies it next to Material's worker.
 *
 * Each language has an index of its own (docs/hooks/search_index.py writes it in the language's folder, and
 * docs/overrides/main.html points the page's search there). This file sits between the page and Material's
 * worker (loaded below, from ?worker=) and, for the language in ?lang=:
 *   - rewrites each query the way the index was built: Chinese is cut into the words that jieba cut the
 *     pages into at build time, question words are dropped and synonyms added (docs/data/search.yml);
 *   - cleans a pasted error message into the words it shares with the pages (see clean() below);
 *   - shows each result page with its best section, not the page alone (see bestSectionFirst() below),
 *     and the first page with its second best too (showSecondSection());
 *   - orders the pages by their own entry and their best section together (see pageRank() below);
 *   - takes the U+200B that separates jieba's words in the index out of the results the page shows.
 */

const SETUP = 0, QUERY = 2, RESULT = 3 // Material's SearchMessageType
const params = new URL(self.location.href).searchParams
const language = params.get("lang")

const HAN = /\p{sc=Han}+/gu
const ONLY_HAN = /^\p{sc=Han}+$/u
const ZERO_WIDTH_SPACE = /\u200b/g
const LONGEST_WORD = 8

// What a pasted message holds besides words. Each of these would otherwise reach lunr as query syntax
// (`word:` a field, "…" required words, * ~ ^ wildcards and operators, and a query lunr cannot parse
// finds nothing at all), or as words that differ from one run to the next and match the wrong pages.
// A Python traceback's frames: where the code ran, not what went wrong. A frame is its File "…", line …
// line and the source line after it (the box has dropped the line breaks), up to the next frame or the
// exception's own line (RuntimeError: …).
const TRACEBACK = /\bTraceback \(most recent call last\):?|\bFile "[^"]*", line \d+.*?(?=\bFile "|\b\w+(?:Error|Exception|Warning|Interrupt|Exit):|$)/g
// PyTorch's note on warnings raised in C++: "(Triggered internally at /path/file.cpp:434.)"
const TRIGGERED = /\(Triggered internally at [^)]*\)/g
// a URL, a file path (two slashes, or one leading /, ~/, ./, C:\), a source location (file.cpp:127)
const LOCATION = /^(?:[a-z][\w+.-]*:\/\/|[~.]{0,2}\/|[a-z]:\\|[^\s/\\]*[/\\][^\s/\\]*[/\\])|\.\w+:\d+/i
// a size with its unit: "2.00 GiB", "20.00 MiB", "1125899906842624 bytes"
const SIZE = /\b\d[\d.,]*\s*(?:[KMGTPE]i?B|bytes?)\b/gi
// a number (3, 2.00, the 1 of cuda:1), a shape (896x28), an address (0x7f3a…): none says what went wrong
const NUMBER = /^(?:\d[\d.,]*|\d+(?:x\d+)+|0x[\da-f]+)$/i
// a message pasted from a terminal rather than a question typed: it names an exception or a warning, or runs
// to a dozen words and more. Its numbers go; a question's stay (the 0 of "what does cuda:0 mean", sm_86).
const MESSAGE = /\b\w+(?:Error|Exception|Warning)\b|\S+(?:\s+\S+){11}/
// punctuation: every character but letters, digits, _ . ' + -, then the ' that quote rather than join
// (can't), the + and - that are no operator (non-PyTorch, c++), the -- of an option (--device)
const PUNCTUATION = /[^\p{L}\p{N}\s_.'+-]|(?<![\p{L}\p{N}])'|'(?![\p{L}\p{N}])|(?<=\S)[+-]+|[+-]+(?!\p{L})|(?:^|\s)-(?=-)/gu
// Material makes every term a prefix (term*): "process" finds "processor" as well as "process", and the
// longer, rarer word weighs more. A word typed in full also goes in as itself, at twice the weight, so
// that the page that says what the reader typed outranks one that only shares the word's beginning.
const EXACT = "^2"
// A synonym (docs/data/search.yml) goes in as itself, at half the weight of a word typed: the page that says
// what the reader typed leads one that only says the synonym ("torch.compile 第一次运行很慢" found the
// performance page, whose title is 慢's synonym 性能, before the torch.compile section that says 慢).
const SYNONYM = "^0.5"

let words = new Set() // the Chinese words of this language's index, as jieba cut them
let separator = /\s+/ // the index's word separator, from its config
let stopWords = new Set()
let synonyms = {}
let keywordTexts = new Map() // location -> the words of its section keywords, lower case (see keywordShare)
let wholeTexts = new Map() // location -> its title, text and code, lower case (see nameShare)
let variants = [] // [pattern, term]: a word the glossary keeps off the pages, and the pages' word for it

// Registered before Material's handler (importScripts below), so it sees each message first and may
// change it in place.
addEventListener("message", event => {
  const message = event.data
  if (message.type === SETUP) setUp(message.data)
  else if (message.type === QUERY) message.data = rewrite(message.data)
})

function setUp(index) {
  separator = new RegExp(index.config.separator)
  const rules = (index.config.query || {})[language] || {}
  stopWords = new Set((rules.stop_words || []).map(word => word.toLowerCase()))
  synonyms = Object.fromEntries(Object.entries(rules.synonyms || {}).map(([k, v]) => [k.toLowerCase(), v]))
  // plain words by construction (search_index.term_variants): nothing in them to escape
  variants = Object.entries(rules.variants || {}).map(([variant, term]) => [new RegExp(
    /\p{sc=Han}/u.test(variant) ? variant : `(?<![\\p{L}\\p{N}_])${variant}(?![\\p{L}\\p{N}_])`, "giu"), term])
  keywordTexts = new Map(index.docs.filter(doc => doc.section_keywords)
    .map(doc => [doc.location, doc.section_keywords.toLowerCase().split(/\s+/)]))
  wholeTexts = new Map(index.docs.map(doc => [doc.location, [doc.title, doc.text, doc.code].join(" ").toLowerCase()]))
  words = new Set([...Object.keys(synonyms), ...stopWords].filter(word => ONLY_HAN.test(word)))
  for (const doc of index.docs)
    for (const text of [doc.title, doc.text, doc.keywords])
      for (const [word] of (text || "").matchAll(HAN)) words.add(word) // jieba's words are U+200B-separated
}

let names = [] // the names of code that the query holds (see codeNames), for the results it gets
let typed = new Set() // the query's own words as terms, not the synonyms added (see keywordShare)
let pasted = false // whether the query is a pasted message (MESSAGE), for the results it gets (see keywordShare)

function rewrite(query) {
  // a variant of docs/data/terms.yml (梯度检查点, 批大小): the pages say the glossary's term instead
  query = variants.reduce((text, [variant, term]) => text.replace(variant, ` ${term} `), query)
  const cleaned = clean(query)
  names = codeNames(cleaned) // not from a traceback's paths and frames, which clean() took out
  const terms = new Map() // term -> how lunr gets it; each once, however often the message repeats it
  const message = (pasted = MESSAGE.test(query))
  typed = new Set()
  const add = (word, own = false) => {
    // a letter alone (the s of "Error(s)", the x of x.to()) would find every word that starts with it
    if (word.length < 2 && !ONLY_HAN.test(word) && (message || !/\d/.test(word))) return
    if ((message && NUMBER.test(word)) || isStopWord(word.toLowerCase())) return
    for (const t of term(word)) {
      terms.set(t.toLowerCase(), t)
      if (own) typed.add(t.toLowerCase().replace(/[*~^].*$/, ""))
    }
    for (const each of (synonyms[word.toLowerCase()] || []).flatMap(w => w.split(/\s+/)))
      terms.set(`${each}${SYNONYM}`.toLowerCase(), `${each}${SYNONYM}`)
  }
  // a method typed as code (.to(), .to(device)): lunr drops its name "to" as a stop word, so the words
  // the pages use for it (a synonym whose key is the method, docs/data/search.yml) stand in for it
  for (const [method, more] of Object.entries(synonyms))
    if (method.startsWith(".") && query.toLowerCase().includes(method.replace(/\)$/, ""))) more.forEach(add)
  for (const part of cleaned.replace(HAN, run => ` ${run} `).split(/\s+/)) {
    if (/^[+-]\p{L}/u.test(part)) terms.set(part.toLowerCase(), part) // lunr's +must -not: Material reads it
    else if (isStopWord(part.toLowerCase())) continue // before it is cut: PyTorch as well as pytorch
    else if (ONLY_HAN.test(part)) segment(part).forEach(word => add(word, true))
    // cut as the index was (device_count, tensor.to), so that each piece is weighed on its own
    else part.split(separator).forEach(word => add(word, true))
  }
  return terms.size ? [...terms.values()].join(" ") : clean(query) // only question words: search those
}

// The words of a query, as a reader means them: a pasted message without its traceback lines, paths,
// URLs, source locations and sizes, and punctuation that lunr would read as syntax made a space.
function clean(query) {
  return query.replace(TRACEBACK, " ").replace(TRIGGERED, " ").replace(SIZE, " ")
    .split(/\s+/).filter(part => !LOCATION.test(part.replace(/^[("'`[]+/, ""))).join(" ")
    .replace(PUNCTUATION, " ")
}

// The cheapest cut of a run of Chinese characters into the index's words; a character that starts no
// word stands alone (and costs more, so that known words win).
function segment(run) {
  const cost = [0], from = [0]
  for (let end = 1; end <= run.length; end++) {
    cost[end] = Infinity
    for (let start = Math.max(0, end - LONGEST_WORD); start < end; start++) {
      const step = words.has(run.slice(start, end)) ? 1 : end - start === 1 ? 3 : Infinity
      if (cost[start] + step < cost[end]) [cost[end], from[end]] = [cost[start] + step, start]
    }
  }
  const cut = []
  for (let end = run.length; end > 0; end = from[end]) cut.unshift(run.slice(from[end], end))
  return cut
}

function isStopWord(word) {
  // the index leaves out lunr's stop words (config pipeline: stopWordFilter); as a query they would only
  // match as prefixes of other words ("to" of "torch")
  return stopWords.has(word) || [lunr.stopWordFilter, lunr.zh?.stopWordFilter].some(filter => filter && !filter(word))
}

// Material makes every term a prefix (term*) unless it carries a boost. A single Chinese character that
// is a word of the index gets only the neutral boost ^1, so that it finds that word, not every word that
// starts with it; one that is no word stays a prefix (机 of 多机 finds 机器). An English plural loses its
// s and, as a prefix, still finds the plural ("gpus" finds GPU and GPUs). A word of two letters or more
// also goes in as itself (EXACT).
function term(word) {
  if (ONLY_HAN.test(word) && word.length === 1) return [words.has(word) ? `${word}^1` : word]
  if (/^\d$/.test(word)) return [`${word}^1`] // a device's index (cuda:0): itself, not every number it starts
  const prefix = /^[a-z]{2,}[^s]s$/i.test(word) ? word.slice(0, -1) : word
  return word.length > 1 ? [prefix, `${word}${EXACT}`] : [prefix]
}

importScripts(params.get("worker"))

// Material cuts Chinese query text once more, greedily on the index's words (its query/segment), and on
// a query cut already it drops characters (显存 becomes 显 when 显 is also a word). That lookup is the
// only `word in invertedIndex` test; lunr itself reads the inverted index by key, so hiding membership
// turns Material's cut into a no-op and leaves the search as it was.
const build = lunr.Builder.prototype.build
lunr.Builder.prototype.build = function () {
  const index = build.call(this)
  index.invertedIndex = new Proxy(index.invertedIndex, { has: () => false })
  return index
}

// Results as the page shows them: each page with its best section (bestSectionFirst), in the order of pageRank,
// only the pages that rank at least RELEVANT of the first, and without the U+200B between jieba's words
// (highlighting is done by now). Material lists, and counts, every page that shares a word with the query: nearly
// every page shares "GPU" or a prefix of a word, and "59 matching documents" (every page) was the count of 12 of 16
// questions a reader asked. Below a tenth of the first, a page only names the query's words in passing.
const RELEVANT = 0.1
const post = self.postMessage.bind(self)
self.postMessage = message => {
  if (message.type === RESULT) {
    const ranked = message.data.items.map(group => (bestSectionFirst(group), [pageRank(group), group]))
      .sort((a, b) => b[0] - a[0])
    message.data.items = ranked.filter(([rank]) => rank >= RELEVANT * ranked[0][0]).map(([, group]) => group)
    if (message.data.items.length) showSecondSection(message.data.items[0])
    for (const item of message.data.items.flat())
      for (const key of ["title", "text"])
        if (typeof item[key] === "string") item[key] = item[key].replace(ZERO_WIDTH_SPACE, "")
  }
  post(message)
}

// Material lists a page's sections under its link only where they score at least as high as the first
// entry of that page's group (its renderSearchResultItem); the rest fold under "N more on this page".
// The page's own entry (title, opening, keywords) also carries Material's bonus for pages, so a question
// that one section answers showed the page with that section folded away. Putting the page's best
// section first in its group shows that section under the page's link; the others still fold.
// Material's score counts each query word as often as a section repeats it (lunr with its length
// normalisation off), so a long section that says "GPU" twenty times outranked the short one whose
// heading is the question; a section's score counts once more the share of the query's words that its
// heading holds (Material marks them there), so that of two sections the one titled by the question leads.
function bestSectionFirst(group) {
  const sections = group.filter(item => item.location.includes("#"))
  if (!sections.length) return
  sections.forEach(item => (item.rank = item.score * (1 + headingShare(item)) * (1 + NAME * nameShare(item))
    * (1 + KEYWORD * keywordShare(item))))
  const best = sections.reduce((a, b) => (b.rank > a.rank ? b : a))
  group.splice(group.indexOf(best), 1)
  group.unshift(best)
}

// Material orders the pages by their best entry, and its bonus for a page's own entry (title, opening,
// keywords) makes that the page's entry nearly always: the page whose opening shares the most words with the
// question came first, and a question that one section answers found that section's page second or third,
// behind pages that only name the same things in passing. A page ranks by its own entry's score, weighed at
// PAGE_WEIGHT, plus its best section's (the one bestSectionFirst put first; the heading's share, which chose
// it, stays out: a heading that repeats a short question's words took the page of a quick summary over the
// page that teaches the thing): the page with the section that answers leads, and a page that the question
// names as a whole still does, its entry keeping Material's bonus. PAGE_WEIGHT was weighed on the first half
// of tests/data/search_questions.yml's questions (0.3 to 1; the larger of the two instead of their sum).
// The best section counts up to KEYWORD_PAGE times more for the share of the question's words its section
// keywords hold (keywordShare): a long page that repeats the question's common words (multi-gpu.md, for "BatchNorm
// 的 running_mean 会跟着模型移到GPU吗") led the page whose section readers describe in those words. Weighed on the
// tuning questions (0.5 to 2; zh gained 4 pages first and 3 sections, en held) and checked on a batch held out
// before it.
const PAGE_WEIGHT = 0.5
const PHRASE = 0.5
const KEYWORD_PAGE = 1
function pageRank(group) {
  const page = group.find(item => !item.location.includes("#"))
  const best = group[0].location.includes("#")
    ? group[0].score * (1 + PHRASE * phraseShare(group[0])) * (1 + NAME * nameShare(group[0]))
      * (1 + KEYWORD_PAGE * keywordShare(group[0])) : 0
  return (page ? page.score : 0) * PAGE_WEIGHT + best
}

// A name from code (HIP_VISIBLE_DEVICES, torch.cuda.get_device_name) reaches the index cut into its words, and
// the common ones (visible, devices; device, name) outweighed the rare: the section about CUDA_VISIBLE_DEVICES
// led the one about HIP_VISIBLE_DEVICES. A section (and its page) that holds the name whole, in its prose or
// its code, counts up to NAME times more. A dotted name also counts as its last two parts (cuda.get_device_name
// for torch.cuda.get_device_name), and as its last part where that is a name of its own (get_device_name).
const NAME = 1
const CODE_NAME = /[a-z_][\w]*(?:[._][\w]+)+/gi
function codeNames(query) {
  const found = new Map() // a name -> the forms a page may write it in; each name once
  for (const [name] of query.matchAll(CODE_NAME)) {
    if (!/[a-z]/i.test(name) || name.length < 6) continue
    const parts = name.toLowerCase().split(".")
    found.set(parts.join("."), [parts.join("."), parts.slice(-2).join("."), parts.at(-1).includes("_") && parts.at(-1)]
      .filter(Boolean))
  }
  return [...found.values()]
}
// A result carries its text cut to a teaser (Material's highlight of the text field), so a name further down
// the section was missed (torch.cuda.is_bf16_supported, four paragraphs into its section): the whole entry
// is read from the index instead.
function nameShare(item) {
  if (!names.length) return 0
  const text = wholeTexts.get(item.location) ?? ""
  return names.filter(forms => forms.some(form => text.includes(form))).length / names.length
}

// two marked words with nothing between them but spaces, or one short unmarked word (in, of, the; 的, 在)
const MARKED_PAIR = /<mark>([^<]*)<\/mark>[\s\u200b]*(?:(?:[a-z]{1,3}|\p{sc=Han})[\s\u200b]*)?(?=<mark>([^<]*)<\/mark>)/giu
function phraseShare(item) {
  const asked = Object.keys(item.terms || {}).length
  if (asked < 2) return 0
  const pairs = new Set()
  for (const text of [item.title, item.text])
    for (const m of String(text).matchAll(MARKED_PAIR))
      if (m[1].toLowerCase() !== m[2].toLowerCase()) pairs.add(`${m[1]} ${m[2]}`.toLowerCase())
  return Math.min(1, pairs.size / (asked - 1))
}

// The share of the query's words that a section's keywords hold (docs/data/section_keywords.yml: the words readers
// use for what it answers). In the choice of a page's section it counts up to KEYWORD times more: the keywords'
// field alone (weighed low in mkdocs.yml, as more lost pasted errors) left a long section that repeats the
// question's common word ahead of the one that answers. Not for a pasted message, whose words are the pages' own.
// KEYWORD was weighed on the tuning questions (1, 2, 3, 5) and checked on a batch held out before it.
// Only the words the reader typed count, not the synonyms added for them: the words added for .to() (move,
// moving) matched keywords of every section about moving a model, and with KEYWORD_PAGE took "model.cuda() vs
// model.to(device)" to the legacy page. A word typed matches a keyword that starts it, or that it starts where the
// keyword has KEYWORD_STEM letters or more ("slower" the keyword "slow", "compiled" "compile"): the keywords are
// phrases, not the index's stemmed words.
const KEYWORD = 3
const KEYWORD_STEM = 4
function keywordShare(item) {
  const words = keywordTexts.get(item.location)
  if (!words || pasted) return 0
  const asked = [...new Set(Object.keys(item.terms || {}).map(term => term.toLowerCase().replace(/[*~^].*$|\*/g, "")))]
    .filter(term => typed.has(term))
  if (!asked.length) return 0
  const matches = term => word => word.startsWith(term) || (word.length >= KEYWORD_STEM && term.startsWith(word))
  return asked.filter(term => words.some(matches(term))).length / asked.length
}

// The share of the query's words that a result's heading holds: its words that Material marked.
function headingShare(item) {
  const asked = Object.keys(item.terms || {}).length
  const marks = String(item.title).matchAll(/<mark>(.*?)<\/mark>/g)
  const marked = new Set([...marks].map(m => m[1].toLowerCase()))
  return asked ? Math.min(1, marked.size / asked) : 0
}

// The first page's best section is often one of two near-equals (the question's words spread over both),
// and the one shown was often not the one that answers. The first page shows its second best section too,
// under the best, where that one ranks at least SECOND_SECTION of the best: it takes the best's score,
// which is what Material's renderSearchResultItem compares to unfold a section.
// (Only the first page: further down, each page keeps to its link and its one best section.)
const SECOND_SECTION = 0.3
function showSecondSection(group) {
  const [best, ...rest] = group
  if (!best.location.includes("#")) return
  const second = rest.filter(item => item.location.includes("#"))
    .reduce((a, b) => (!a || b.rank > a.rank ? b : a), null)
  if (!second || second.rank < SECOND_SECTION * best.rank) return
  group.splice(group.indexOf(second), 1)
  group.splice(1, 0, second) // before any other: Material unfolds sections up to the first below the best
  second.score = Math.max(second.score, best.score)
}
