//! The real model. Needs `scripts/fetch-model` to have run; CI runs it first.
#![cfg(feature = "fastembed")]

use oro_mem_rank_vector::{cosine, Embedder, MiniLm, ModelFiles, MINILM_DIMENSION};

fn model() -> MiniLm {
    MiniLm::load_default()
        .unwrap_or_else(|e| panic!("{e} (the model tests need scripts/fetch-model to have run)"))
}

#[test]
fn matches_the_sentence_transformers_reference() {
    let model = model();
    let v = model
        .embed(&[
            "SQLite WAL mode requires a single writer",
            "write-ahead logging in SQLite",
        ])
        .unwrap();
    let similarity = cosine(&v[0], &v[1]);
    // sentence-transformers (float32 all-MiniLM-L6-v2) gives 0.5309.
    assert!((similarity - 0.531).abs() <= 0.01, "cosine {similarity}");
}

#[test]
fn vectors_are_unit_length_in_input_order() {
    let model = model();
    let texts = [
        "a much longer text about database lock contention between two writers in WAL mode",
        "short",
        "",
        "ruff --fix must run before pyright",
    ];
    let batch = model.embed(&texts).unwrap();
    assert_eq!(batch.len(), texts.len());
    for (text, vector) in texts.iter().zip(&batch) {
        assert_eq!(vector.len(), MINILM_DIMENSION);
        let norm: f32 = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "norm {norm} for {text:?}");
        // Order is kept even though the model embeds by length.
        let alone = model.embed(&[text]).unwrap();
        assert!(cosine(&alone[0], vector) > 0.999, "{text:?} moved");
    }
}

#[test]
fn a_missing_directory_is_named_in_the_error() {
    let dir = std::env::temp_dir().join("oro-mem-no-such-model-dir");
    let err = MiniLm::load(&ModelFiles {
        model_dir: dir.join("all-minilm-l6-v2"),
        ort_dylib: dir.join("libonnxruntime.so"),
    })
    .unwrap_err();
    assert!(err.to_string().contains("fetch-model"), "{err}");
    assert!(err.to_string().contains("libonnxruntime.so"), "{err}");
}
