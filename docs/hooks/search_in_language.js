/*
 * Material's search worker, run for one language of the site. docs/overrides/main.html starts it instead
 * of Material's; docs/hooks/search_index.py copies it next to Material's worker.
 *
 * mkdocs-static-i18n merges every language into the one search/search_index.json that Material fetches
 * on every page, so a search would mix the languages. This file sits between the page and Material's
 * worker (loaded below, from ?worker=) and, for the language in ?lang=:
 *   - keeps only that language's documents (docs/hooks/search_index.py tags each with `lang`);
 *   - rewrites each query the way the index was built: Chinese is cut into the words that jieba cut the
 *     pages into at build time, question words are dropped and synonyms added (docs/data/search.yml);
 *   - takes the U+200B that separates jieba's words in the index out of the results the page shows.
 */

const SETUP = 0, QUERY = 2, RESULT = 3 // Material's SearchMessageType
const params = new URL(self.location.href).searchParams
const language = params.get("lang")

const HAN = /\p{sc=Han}+/gu
const ONLY_HAN = /^\p{sc=Han}+$/u
const ZERO_WIDTH_SPACE = /\u200b/g
// query punctuation that is no part of a word: Chinese and full-width marks, ASCII ? ! , ; : = and brackets
const PUNCTUATION = /[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65?!,;:=()[\]{}]/g
const LONGEST_WORD = 8

let words = new Set() // the Chinese words of this language's index, as jieba cut them
let separator = /\s+/ // the index's word separator, from its config
let stopWords = new Set()
let synonyms = {}

// Registered before Material's handler (importScripts below), so it sees each message first and may
// change it in place.
addEventListener("message", event => {
  const message = event.data
  if (message.type === SETUP) setUp(message.data)
  else if (message.type === QUERY) message.data = rewrite(message.data)
})

function setUp(index) {
  if (index.docs.some(doc => doc.lang)) index.docs = index.docs.filter(doc => doc.lang === language)
  separator = new RegExp(index.config.separator)
  const rules = (index.config.query || {})[language] || {}
  stopWords = new Set((rules.stop_words || []).map(word => word.toLowerCase()))
  synonyms = Object.fromEntries(Object.entries(rules.synonyms || {}).map(([k, v]) => [k.toLowerCase(), v]))
  words = new Set([...Object.keys(synonyms), ...stopWords].filter(word => ONLY_HAN.test(word)))
  for (const doc of index.docs)
    for (const text of [doc.title, doc.text, doc.keywords])
      for (const [word] of (text || "").matchAll(HAN)) words.add(word) // jieba's words are U+200B-separated
}

function rewrite(query) {
  const terms = []
  const add = word => {
    if (!word || isStopWord(word.toLowerCase())) return
    terms.push(term(word))
    for (const synonym of synonyms[word.toLowerCase()] || [])
      terms.push(...synonym.split(/\s+/).map(term))
  }
  for (const part of query.replace(PUNCTUATION, " ").replace(HAN, run => ` ${run} `).split(/\s+/)) {
    const word = part.replace(/^--+/, "") // an option as typed: --device
    if (/^[+-]|"/.test(word)) terms.push(word) // lunr's syntax (+must -not "phrase"): Material reads it
    else if (ONLY_HAN.test(word)) segment(word).forEach(add)
    // cut as the index was (device_count, tensor.to), so that each piece is weighed on its own
    else word.split(separator).forEach(add)
  }
  return terms.length ? terms.join(" ") : query // only question words: search what was typed
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
  return stopWords.has(word)
    || (typeof lunr.stopWordFilter === "function" && !lunr.stopWordFilter(word))
    || (typeof lunr.zh?.stopWordFilter === "function" && !lunr.zh.stopWordFilter(word))
}

// Material makes every term a prefix (term*) unless it carries a boost. A single Chinese character and a
// number get the neutral boost ^1, so that they find that word (the 0 of cuda:0), not every word that
// starts with them (every 0.98 of a timing table). An English plural loses its s and, as a prefix,
// still finds the plural ("gpus" finds GPU and GPUs).
function term(word) {
  if ((ONLY_HAN.test(word) && word.length === 1) || /^\d+$/.test(word)) return `${word}^1`
  if (/^[a-z]{2,}[^s]s$/i.test(word)) return word.slice(0, -1)
  return word
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

// Results as the page shows them: without the U+200B between jieba's words (highlighting is done by now).
const post = self.postMessage.bind(self)
self.postMessage = message => {
  if (message.type === RESULT)
    for (const item of message.data.items.flat())
      for (const key of ["title", "text"])
        if (typeof item[key] === "string") item[key] = item[key].replace(ZERO_WIDTH_SPACE, "")
  post(message)
}
