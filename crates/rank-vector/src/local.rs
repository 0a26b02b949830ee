//! The local embedding model: all-MiniLM-L6-v2 run by fastembed on ONNX Runtime, fully offline.
//!
//! Nothing is downloaded at run time. `scripts/fetch-model` (in the oro-mem repository) puts the
//! files below in the [model directory](ModelFiles::default_dir):
//!
//! ```text
//! <dir>/onnxruntime/libonnxruntime.so        ONNX Runtime >= 1.24 (loaded with dlopen)
//! <dir>/all-minilm-l6-v2/model.onnx          int8 all-MiniLM-L6-v2
//! <dir>/all-minilm-l6-v2/tokenizer.json      and config.json, special_tokens_map.json,
//!                                            tokenizer_config.json
//! ```

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use fastembed::{
    InitOptionsUserDefined, Pooling, TextEmbedding, TokenizerFiles, UserDefinedEmbeddingModel,
};
use oro_mem_core::{Error, ErrorKind, Result};

use crate::Embedder;

/// Model id stored beside every embedding this model makes.
pub const MINILM_MODEL_ID: &str = "all-MiniLM-L6-v2/onnx-int8";

/// Output dimension of all-MiniLM-L6-v2.
pub const MINILM_DIMENSION: usize = 384;

/// Longest input in tokens; longer texts are truncated (the model was trained on 256).
pub const MINILM_MAX_TOKENS: usize = 256;

/// Environment variable naming the model directory.
pub const MODEL_DIR_ENV: &str = "ORO_MEM_MODEL_DIR";

/// Environment variable naming the ONNX Runtime library, overriding the one in the model
/// directory.
pub const ORT_DYLIB_ENV: &str = "ORO_MEM_ORT_DYLIB";

const TEXTS_PER_BATCH: usize = 32;

/// Where the model and runtime files are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFiles {
    /// Directory holding `all-minilm-l6-v2/`.
    pub model_dir: PathBuf,
    /// The ONNX Runtime shared library.
    pub ort_dylib: PathBuf,
}

impl ModelFiles {
    /// The default model directory: `$ORO_MEM_MODEL_DIR`, else
    /// `$XDG_CACHE_HOME/oro-mem/models`, else `$HOME/.cache/oro-mem/models` (the same rule as
    /// `scripts/fetch-model`). `None` when none of those variables is set.
    pub fn default_dir() -> Option<PathBuf> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(dir) = var(MODEL_DIR_ENV) {
            return Some(PathBuf::from(dir));
        }
        let cache = var("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
        Some(cache.join("oro-mem").join("models"))
    }

    /// The files under `dir`, with the runtime taken from `$ORO_MEM_ORT_DYLIB` when set.
    pub fn in_dir(dir: impl Into<PathBuf>) -> ModelFiles {
        let dir = dir.into();
        let ort_dylib = std::env::var_os(ORT_DYLIB_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| dir.join("onnxruntime").join(dylib_name()));
        ModelFiles {
            model_dir: dir.join("all-minilm-l6-v2"),
            ort_dylib,
        }
    }

    /// [`ModelFiles::in_dir`] of [`ModelFiles::default_dir`].
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Embedding`] when no directory can be derived from the environment.
    pub fn locate() -> Result<ModelFiles> {
        ModelFiles::default_dir()
            .map(ModelFiles::in_dir)
            .ok_or_else(|| {
                Error::new(
                    ErrorKind::Embedding,
                    format!("no model directory: set {MODEL_DIR_ENV} or HOME"),
                )
            })
    }
}

fn dylib_name() -> &'static str {
    if cfg!(target_os = "macos") {
        "libonnxruntime.dylib"
    } else if cfg!(target_os = "windows") {
        "onnxruntime.dll"
    } else {
        "libonnxruntime.so"
    }
}

/// all-MiniLM-L6-v2 (int8 ONNX) with mean pooling and unit-length output.
///
/// Loading takes a few hundred milliseconds (the runtime and a 23 MB model); embedding is
/// serialised behind a mutex because an ONNX session run needs exclusive access.
pub struct MiniLm {
    model: Mutex<TextEmbedding>,
}

impl std::fmt::Debug for MiniLm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLm")
            .field("model_id", &MINILM_MODEL_ID)
            .finish_non_exhaustive()
    }
}

impl MiniLm {
    /// Loads ONNX Runtime and the model from `files`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Embedding`] naming the missing or unreadable file, or the runtime's own
    /// message when the library or the model does not load.
    pub fn load(files: &ModelFiles) -> Result<MiniLm> {
        // Two cores are common where this runs; the tokenizer's own thread pool only adds
        // contention to ONNX Runtime's.
        tokenizers::utils::parallelism::set_parallelism(false);

        if !files.ort_dylib.is_file() {
            return Err(missing(&files.ort_dylib, "ONNX Runtime library"));
        }
        // Loads the library; ONNX Runtime's environment is then created with the first session.
        let _environment = ort::init_from(&files.ort_dylib).map_err(|e| {
            embedding_error(format!(
                "cannot load ONNX Runtime from {}: {e}; {REINSTALL}",
                files.ort_dylib.display()
            ))
        })?;

        let read = |name: &str| -> Result<Vec<u8>> {
            let path = files.model_dir.join(name);
            std::fs::read(&path).map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    missing(&path, "model file")
                } else {
                    embedding_error(format!("cannot read {}", path.display())).with_source(e)
                }
            })
        };
        let model = UserDefinedEmbeddingModel::new(
            read("model.onnx")?,
            TokenizerFiles {
                tokenizer_file: read("tokenizer.json")?,
                config_file: read("config.json")?,
                special_tokens_map_file: read("special_tokens_map.json")?,
                tokenizer_config_file: read("tokenizer_config.json")?,
            },
        )
        .with_pooling(Pooling::Mean);
        let options = InitOptionsUserDefined::new().with_max_length(MINILM_MAX_TOKENS);
        let model = TextEmbedding::try_new_from_user_defined(model, options).map_err(|e| {
            embedding_error(format!(
                "cannot load the model in {}: {}; {REINSTALL}",
                files.model_dir.display(),
                first_line(&e.to_string()),
            ))
        })?;
        Ok(MiniLm {
            model: Mutex::new(model),
        })
    }

    /// [`MiniLm::load`] from [`ModelFiles::locate`].
    ///
    /// # Errors
    ///
    /// As [`MiniLm::load`].
    pub fn load_default() -> Result<MiniLm> {
        MiniLm::load(&ModelFiles::locate()?)
    }
}

/// What to do about damaged model files.
const REINSTALL: &str = "the files may be damaged or incomplete: run `scripts/fetch-model \
                         --force` (it fetches them again and checks their sha256), or set \
                         ORO_MEM_MODEL_DIR to a good copy";

/// The first line of a runtime's message, which can go on for a page.
fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or(message).trim()
}

fn embedding_error(message: String) -> Error {
    Error::new(ErrorKind::Embedding, message)
}

fn missing(path: &Path, what: &str) -> Error {
    embedding_error(format!(
        "{what} {} not found (run scripts/fetch-model, or set {MODEL_DIR_ENV})",
        path.display()
    ))
}

impl Embedder for MiniLm {
    fn model_id(&self) -> &str {
        MINILM_MODEL_ID
    }

    fn dimension(&self) -> usize {
        MINILM_DIMENSION
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        // Batches pad to their longest text, so embedding in order of length wastes the least
        // work; the answer is put back in input order.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let sorted: Vec<&str> = order.iter().map(|&i| texts[i]).collect();

        let mut model = self
            .model
            .lock()
            .map_err(|_| embedding_error("the embedding model panicked earlier".into()))?;
        let vectors = model
            .embed(&sorted, Some(TEXTS_PER_BATCH))
            .map_err(|e| embedding_error("embedding failed".into()).with_source(e.to_string()))?;
        drop(model);

        if vectors.len() != texts.len() {
            return Err(embedding_error(format!(
                "the model returned {} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        let mut out = vec![Vec::new(); texts.len()];
        for (slot, vector) in order.into_iter().zip(vectors) {
            if vector.len() != MINILM_DIMENSION {
                return Err(embedding_error(format!(
                    "the model returned a vector of dimension {}, expected {MINILM_DIMENSION}",
                    vector.len()
                )));
            }
            out[slot] = vector;
        }
        Ok(out)
    }
}
