//! `oro-mem eval`: import a BEIR-layout benchmark into a scratch store, run every query through
//! the same engine as `oro-mem recall`, and report nDCG@10, Recall@5/10/100, MRR@10 and latency,
//! for one configuration or a grid of them.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use oro_mem_core::config::{DedupConfig, WEIGHT_PREFIX};
use oro_mem_core::{
    Config, Filter, MemoryId, MemoryType, Mode, NewMemory, Query, Source, Timestamp,
};
use oro_mem_engine::{remember_batch, Engine, Registry};
use oro_mem_eval::calibration::Example;
use oro_mem_eval::metrics::QueryResult;
use oro_mem_eval::tune::{best_run, leave_one_out, Metric};
use oro_mem_eval::{CachedEmbedder, Dataset, EmbeddingCache, EvalQuery, QueryScores, Summary};
use serde::Serialize;

use crate::args::{parse_fusion, EvalArgs};
use crate::stores::{self, AnyStore, Scratch};

mod fit;

/// Most configurations one `--grid` may expand to.
const MAX_GRID: usize = 500;

/// Results kept per query: enough for Recall@100.
const RANKED: usize = 100;

/// One grid axis: a configuration key and the values it takes.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    key: String,
    values: Vec<String>,
}

/// Short names `--grid` and `--set` take besides the configuration's own keys, and the keys
/// each sets. A registered ranker's name sets its weight (`bm25=0.5`).
const ALIASES: &[(&str, &[&str])] = &[
    ("k", &["recall.rrf_k"]),
    ("rrf_k", &["recall.rrf_k"]),
    ("fusion", &["recall.fusion"]),
    ("decay", &["decay.enabled"]),
    ("half_life", &["decay.half_life_days"]),
    ("depth", &["recall.depth", "recall.vector_depth"]),
    ("lexical_depth", &["recall.depth"]),
    ("vector_depth", &["recall.vector_depth"]),
    ("min_similarity", &["recall.min_similarity"]),
];

/// The keys `--grid` (and `--set`) understand, for error messages and `--help`.
pub fn grid_keys() -> String {
    let aliases: Vec<String> = ALIASES
        .iter()
        .map(|(short, keys)| format!("{short} ({})", keys.join(" and ")))
        .collect();
    let registry = Registry::default();
    let rankers: Vec<&str> = registry.ranker_names().collect();
    format!(
        "{}, mode, the weight of any ranker by its name ({}), or any configuration key in \
         full (recall.min_score, dedup.cosine, ...)",
        aliases.join(", "),
        rankers.join(", ")
    )
}

/// The text after `oro-mem eval --help`'s options.
pub fn after_help() -> String {
    format!(
        "Keys for --grid and --set: {}.\n\nExample: oro-mem eval --dataset \
         ../shared/eval/scifact --grid mode=fts,vector,hybrid --grid k=20,60",
        grid_keys()
    )
}

/// Sets `key` (an alias, a ranker's name, or a configuration key) to `value` in `config`,
/// checked against the key's domain ([`oro_mem_core::config::KEYS`]).
fn apply(config: &mut Config, key: &str, value: &str) -> Result<()> {
    let full: Vec<String> = match ALIASES.iter().find(|(short, _)| *short == key) {
        Some((_, keys)) => keys.iter().map(|k| k.to_string()).collect(),
        None if Registry::default().ranker_names().any(|n| n == key) => {
            vec![format!("{WEIGHT_PREFIX}{key}")]
        }
        None => vec![key.to_string()],
    };
    for k in &full {
        config
            .set(k, value)
            .map_err(|e| anyhow::anyhow!("{key}={value}: {e}"))?;
    }
    if key == "fusion" || key == "recall.fusion" {
        parse_fusion(value).map_err(|e| anyhow::anyhow!("{key}={value}: {e}"))?;
    }
    Ok(())
}

/// Parses `KEY=V1,V2,...`, checking every value.
pub fn parse_axis(text: &str) -> Result<Axis> {
    let (key, values) = text.split_once('=').with_context(|| {
        format!(
            "--grid {text:?}: expected KEY=V1,V2,... (keys: {})",
            grid_keys()
        )
    })?;
    let key = key.trim().to_string();
    if key.starts_with("embedding.") {
        bail!(
            "--grid {text:?}: the corpus is embedded once per eval, so {key} cannot vary in a \
             grid; run eval once per value with --set {key}=V"
        );
    }
    let values: Vec<String> = values
        .split(',')
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .collect();
    if values.is_empty() {
        bail!("--grid {text:?}: no values for {key}");
    }
    for v in &values {
        apply(&mut Config::default(), &key, v).with_context(|| format!("--grid {text:?}"))?;
    }
    Ok(Axis { key, values })
}

/// One configuration to evaluate and the grid values that made it.
#[derive(Clone, Debug)]
struct Run {
    settings: Vec<(String, String)>,
    config: Config,
}

impl Run {
    fn label(&self) -> String {
        if self.settings.is_empty() {
            return format!("mode={}", self.config.mode);
        }
        self.settings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Every combination of the axes' values over `base`, in order (the last axis varies fastest).
fn expand(base: &Config, axes: &[Axis]) -> Result<Vec<Run>> {
    let total = axes
        .iter()
        .try_fold(1usize, |n, a| n.checked_mul(a.values.len()))
        .filter(|&n| n <= MAX_GRID)
        .with_context(|| format!("--grid expands to more than {MAX_GRID} configurations"))?;
    let mut runs = Vec::with_capacity(total);
    for i in 0..total {
        let mut config = base.clone();
        let mut settings = Vec::new();
        let mut rest = i;
        let mut picks = vec![0; axes.len()];
        for (j, axis) in axes.iter().enumerate().rev() {
            picks[j] = rest % axis.values.len();
            rest /= axis.values.len();
        }
        for (axis, &p) in axes.iter().zip(&picks) {
            apply(&mut config, &axis.key, &axis.values[p])?;
            settings.push((axis.key.clone(), axis.values[p].clone()));
        }
        runs.push(Run { settings, config });
    }
    Ok(runs)
}

/// Turns the product's recall into a pure ranking of the best [`RANKED`]: no minimum score or
/// relevance, no token budget, no near-duplicate skipping, so the metrics judge the order
/// alone.
fn ranking_only(config: &mut Config, depth: usize) {
    config.fallback_to_fts = false;
    let r = &mut config.recall;
    r.depth = depth;
    r.vector_depth = depth;
    r.max_results = RANKED;
    r.budget_tokens = usize::MAX;
    r.min_score = 0.0;
    r.hybrid_min_score = 0.0;
    r.min_relevance = 0.0;
    r.abstain_below = 0.0;
    r.near_duplicate = f64::INFINITY;
}

/// The corpus in a scratch store.
struct Corpus {
    store: AnyStore,
    /// Where a PostgreSQL corpus lives; dropped after the store.
    _scratch: Option<Scratch>,
    doc_of: HashMap<MemoryId, usize>,
    /// "Now" per namespace (`""` = all): the newest `created_at`, or `--now`.
    now: HashMap<String, Timestamp>,
}

fn import(dataset: &Dataset, now: Option<Timestamp>, postgres: Option<&str>) -> Result<Corpus> {
    let (mut store, scratch) = stores::scratch(postgres)?;
    // Eval asks thousands of questions of one open store, as a server does.
    store.stay_warm();
    let undated = now.unwrap_or_else(Timestamp::now);
    let dedup = DedupConfig {
        enabled: false,
        ..DedupConfig::default()
    };
    let mut doc_of = HashMap::with_capacity(dataset.docs.len());
    let mut newest: HashMap<String, Timestamp> = HashMap::new();
    for (start, docs) in (0..).step_by(1000).zip(dataset.docs.chunks(1000)) {
        let batch: Vec<NewMemory> = docs
            .iter()
            .map(|d| {
                let at = d.created_at.unwrap_or(undated);
                // A title is the memory's summary, searched with its own weight
                // (text::LEXICAL_FIELDS).
                let mut m = NewMemory::new(d.body(), MemoryType::Lesson)
                    .source(Source::Import)
                    .created_at(at);
                m.summary = d.summary().map(str::to_string);
                if let Some(ns) = &d.namespace {
                    m = m.namespace(ns.clone());
                }
                m.session = d.session.clone();
                for key in [d.namespace.clone().unwrap_or_default(), String::new()] {
                    let n = newest.entry(key).or_insert(at);
                    *n = (*n).max(at);
                }
                m
            })
            .collect();
        let outcomes = remember_batch(&mut store, batch, &dedup)
            .with_context(|| format!("cannot import {}", dataset.dir.display()))?;
        for (i, o) in outcomes.iter().enumerate() {
            doc_of.insert(o.id(), start + i);
        }
    }
    if let Some(now) = now {
        newest.values_mut().for_each(|t| *t = now);
    }
    Ok(Corpus {
        store,
        _scratch: scratch,
        doc_of,
        now: newest,
    })
}

/// Embeds the corpus through the cache; queries are embedded by the bare model (so query
/// latency includes embedding the query, as in `recall`).
fn embed(corpus: &mut Corpus, engine: &mut Engine, cache: Option<&Path>) -> Result<()> {
    let model = engine.embedder()?;
    let cache = match cache {
        Some(path) => EmbeddingCache::create(path)?,
        None => EmbeddingCache::in_memory()?,
    };
    let cached = Arc::new(CachedEmbedder::new(model, cache));
    let mut caching = engine
        .reconfigured(engine.config().clone())?
        .with_embedder(cached.clone());
    let started = Instant::now();
    let mut next_line = 0;
    caching.embed_missing(&mut corpus.store, 64, |p| {
        if p.total > 0 && (p.done >= next_line || p.done == p.total) {
            eprintln!("eval: embedding corpus {}/{}", p.done, p.total);
            next_line = p.done + p.total.div_ceil(10);
        }
    })?;
    let stats = cached.stats();
    eprintln!(
        "eval: corpus embedded in {:.1} s ({} from cache, {} by the model)",
        started.elapsed().as_secs_f64(),
        stats.hits,
        stats.misses
    );
    Ok(())
}

/// What one configuration scored.
#[derive(Debug, Serialize)]
struct RunReport {
    label: String,
    settings: BTreeMap<String, String>,
    mode: Mode,
    #[serde(flatten)]
    summary: Summary,
    /// With `--unrelated`: the share of the other dataset's queries answered with nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    unrelated_empty: Option<f64>,
    /// With `--fit-calibration`: the relevance model and how the row was scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    fitted: Option<fit::Fitted>,
}

#[derive(Debug, Serialize)]
struct Report {
    dataset: String,
    split: String,
    documents: usize,
    queries: usize,
    depth: usize,
    as_recalled: bool,
    /// With `--unrelated`: the other dataset and how many of its queries were asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    unrelated: Option<(String, usize)>,
    runs: Vec<RunReport>,
    /// Each mode's best setting chosen on other queries than those it is scored on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    out_of_sample: Vec<OutOfSample>,
}

/// One mode scored out of sample (`--cross-validate`, `--tune-on`).
#[derive(Debug, Serialize)]
struct OutOfSample {
    mode: Mode,
    /// How the setting was chosen.
    method: String,
    /// What it was chosen by.
    metric: Metric,
    /// The setting chosen for each held-out group (one, for a split).
    chosen: Vec<Chosen>,
    #[serde(flatten)]
    summary: Summary,
}

/// The setting chosen for queries it was not chosen on.
#[derive(Debug, Serialize)]
struct Chosen {
    /// The held-out namespace, or the split scored.
    held_out: String,
    label: String,
}

fn evaluate(
    corpus: &mut Corpus,
    engine: &mut Engine,
    dataset: &Dataset,
    queries: &[oro_mem_eval::EvalQuery],
    run: &Run,
    warnings: &mut Vec<String>,
) -> Result<Vec<QueryResult>> {
    let mut out = Vec::with_capacity(queries.len());
    for q in queries {
        let filter = Filter {
            namespace: q.namespace.clone(),
            ..Filter::default()
        };
        let now = corpus.now[q.namespace.as_deref().unwrap_or_default()];
        let started = Instant::now();
        let query = Query::new(&q.text, &filter).now(now);
        let answer = engine
            .recall(&mut corpus.store, &query, false)
            .with_context(|| format!("query {}", q.id))?;
        let latency_ms = started.elapsed().as_secs_f64() * 1e3;
        if answer.mode != run.config.mode {
            bail!(
                "query {}: asked for {} but {} answered: {}",
                q.id,
                run.config.mode,
                answer.mode,
                answer.recall.warnings.join("; ")
            );
        }
        for w in answer.recall.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        let ranked: Vec<&str> = answer
            .recall
            .results
            .iter()
            .map(|r| dataset.docs[corpus.doc_of[&r.memory.id]].id.as_str())
            .collect();
        out.push(QueryResult {
            id: q.id.clone(),
            scores: QueryScores::of(&ranked, &dataset.qrels[&q.id]),
            latency_ms,
            category: q.category.clone(),
            namespace: q.namespace.clone(),
        });
    }
    Ok(out)
}

/// The share of `other`'s queries that recall answers with nothing from the corpus, searching
/// the whole store (the queries' own namespaces belong to the other dataset). With
/// `fitted_on` (the examples `run`'s models were fitted on, and `--fit-also`'s), the queries
/// of a namespace (a LoCoMo conversation) are asked with models fitted without it:
/// `--fit-unrelated` may have fitted on these very questions.
fn unrelated_empty(
    corpus: &mut Corpus,
    engine: &Engine,
    other: &Dataset,
    run: &Run,
    fitted_on: Option<(&[Example], &[Example])>,
) -> Result<f64> {
    // The group each query's models leave out (none: the models fitted on everything).
    let mut by_group: BTreeMap<Option<String>, Vec<&EvalQuery>> = BTreeMap::new();
    for q in &other.queries {
        let held = (fitted_on.is_some() && q.namespace.is_some()).then(|| fit::group(other, q));
        by_group.entry(held).or_default().push(q);
    }
    let filter = Filter::default();
    let now = corpus.now[""];
    let mut empty = 0usize;
    for (held, queries) in &by_group {
        let run = match (fitted_on, held) {
            (Some((examples, also)), Some(held)) => {
                let (relevance, answerable) = fit::models(examples, also, Some(held));
                fit::calibrated(run, &relevance, &answerable)
            }
            _ => run.clone(),
        };
        let mut engine = engine.reconfigured(run.config.clone())?;
        for q in queries {
            let query = Query::new(&q.text, &filter).now(now);
            let answer = engine
                .recall(&mut corpus.store, &query, false)
                .with_context(|| format!("unrelated query {}", q.id))?;
            if answer.mode != run.config.mode {
                bail!(
                    "unrelated query {}: asked for {} but {} answered",
                    q.id,
                    run.config.mode,
                    answer.mode
                );
            }
            empty += usize::from(answer.recall.results.is_empty());
        }
    }
    Ok(empty as f64 / other.queries.len().max(1) as f64)
}

/// Runs `oro-mem eval`.
pub fn run(a: &EvalArgs, base: Config) -> Result<()> {
    if a.depth < RANKED && !a.as_recalled {
        eprintln!(
            "eval: --depth {} < {RANKED}: Recall@100 counts only what the candidates hold",
            a.depth
        );
    }
    let dataset = Dataset::load(&a.dataset, &a.split)?;
    let mut base = base;
    if let Some(m) = a.mode {
        base.mode = m;
    }
    // Ranking only first, so that `--set depth=…` overrides `--depth`. As recalled, the
    // configuration stays as it is, except that the mode asked for must answer.
    if a.as_recalled {
        base.fallback_to_fts = false;
    } else {
        ranking_only(&mut base, a.depth);
    }
    for s in &a.set {
        let (k, v) = s
            .split_once('=')
            .with_context(|| format!("--set {s:?}: expected KEY=VALUE"))?;
        apply(&mut base, k.trim(), v.trim()).with_context(|| format!("--set {s:?}"))?;
    }
    let axes = a
        .grid
        .iter()
        .map(|g| parse_axis(g))
        .collect::<Result<Vec<_>>>()?;
    let runs = expand(&base, &axes)?;
    let now = a.now.as_deref().map(str::parse).transpose()?;
    let queries = match a.queries {
        Some(n) => &dataset.queries[..n.min(dataset.queries.len())],
        None => &dataset.queries[..],
    };

    let started = Instant::now();
    let mut engine = Engine::from_config(base.clone())?;
    let mut corpus = import(&dataset, now, a.postgres.as_deref())?;
    eprintln!(
        "eval: imported {} documents in {:.1} s",
        dataset.docs.len(),
        started.elapsed().as_secs_f64()
    );
    if runs.iter().any(|r| r.config.mode.uses_vectors()) {
        let cache = if a.no_cache {
            None
        } else {
            a.cache.clone().or_else(EmbeddingCache::default_path)
        };
        embed(&mut corpus, &mut engine, cache.as_deref())?;
    }

    // With --tune-on, every run is scored on the tuning split (the table) and each mode's
    // best on the split asked for.
    let tuning = a
        .tune_on
        .as_deref()
        .map(|split| Dataset::load(&a.dataset, split))
        .transpose()?;
    if let Some(t) = &tuning {
        if t.docs.len() != dataset.docs.len() {
            bail!("--tune-on {}: the corpus differs from --split's", t.split);
        }
    }
    let (table_set, table_queries) = match &tuning {
        Some(t) => (
            t,
            &t.queries[..a.queries.unwrap_or(usize::MAX).min(t.queries.len())],
        ),
        None => (&dataset, queries),
    };
    if a.cross_validate && queries.iter().any(|q| q.namespace.is_none()) {
        bail!(
            "--cross-validate leaves one namespace (conversation) out at a time, and some \
             queries of {} have none; use --tune-on SPLIT",
            dataset.name()
        );
    }

    // `--unrelated` asks the other dataset's test split; `--fit-unrelated` fits on its train
    // split when it has one.
    let other = |dir: Option<&Path>, flag: &str, train_if_any: bool| {
        dir.map(|dir| {
            let train = train_if_any && dir.join("qrels").join("train.tsv").is_file();
            Dataset::load(dir, if train { "train" } else { "test" })
        })
        .transpose()
        .context(flag.to_string())
    };
    let unrelated = other(a.unrelated.as_deref(), "--unrelated", false)?;
    let fit_unrelated = other(a.fit_unrelated.as_deref(), "--fit-unrelated", true)?;
    if let (Some(u), Some(f)) = (&unrelated, &fit_unrelated) {
        if u.dir == f.dir && u.split == f.split && u.queries.iter().any(|q| q.namespace.is_none()) {
            eprintln!(
                "eval: warning: --unrelated asks queries of {} that --fit-unrelated fits on \
                 (they have no namespace to leave out): its share is in sample",
                u.name()
            );
        }
    }
    let also = a
        .fit_also
        .iter()
        .map(|p| fit::read_examples(p))
        .collect::<Result<Vec<_>>>()?
        .concat();
    let also = fit::without(also, &a.fit_without);
    let mut warnings = Vec::new();
    let mut reports = Vec::with_capacity(runs.len());
    let mut all_results = Vec::with_capacity(runs.len());
    // Fitting is slow; settings that rank alike (say, differing in min_relevance only) share
    // their examples.
    let mut examples_of: HashMap<String, Vec<Example>> = HashMap::new();
    for (i, run) in runs.iter().enumerate() {
        if runs.len() > 1 {
            eprintln!("eval: [{}/{}] {}", i + 1, runs.len(), run.label());
        }
        let (results, fitted, run, examples) = if a.fit_calibration {
            let mut ranking = run.config.clone();
            ranking_only(&mut ranking, RANKED);
            let key = toml::to_string(&ranking)?;
            if !examples_of.contains_key(&key) {
                let mut examples =
                    fit::collect(&mut corpus, &engine, table_set, true, table_queries, run)?;
                if let Some(other) = &fit_unrelated {
                    examples.extend(fit::collect(
                        &mut corpus,
                        &engine,
                        table_set,
                        false,
                        &other.queries,
                        run,
                    )?);
                }
                if let Some(path) = &a.features {
                    fit::write_examples(path, &examples)?;
                }
                examples_of.insert(key.clone(), fit::without(examples, &a.fit_without));
            }
            let holdout = if a.cross_validate {
                fit::Holdout::EachNamespace(table_queries)
            } else if tuning.is_some() {
                fit::Holdout::Split(&dataset, queries)
            } else {
                fit::Holdout::InSample(table_queries)
            };
            let (results, fitted) = fit::score(
                &mut corpus,
                &engine,
                table_set,
                run,
                &examples_of[&key],
                &also,
                holdout,
                &mut warnings,
            )?;
            // The rest of the row (--unrelated) uses the model fitted on everything, but for
            // queries of a namespace (see below).
            let run = fit::calibrated(run, &fitted.calibration, &fitted.answerable);
            (results, Some(fitted), run, Some(&examples_of[&key]))
        } else {
            let mut run_engine = engine
                .reconfigured(run.config.clone())
                .with_context(|| run.label())?;
            let results = evaluate(
                &mut corpus,
                &mut run_engine,
                table_set,
                table_queries,
                run,
                &mut warnings,
            )?;
            (results, None, run.clone(), None)
        };
        let unrelated_empty = match &unrelated {
            Some(other) => {
                let fitted_on = examples.map(|e| (e.as_slice(), also.as_slice()));
                Some(unrelated_empty(
                    &mut corpus,
                    &engine,
                    other,
                    &run,
                    fitted_on,
                )?)
            }
            None => None,
        };
        reports.push(RunReport {
            label: run.label(),
            settings: run.settings.iter().cloned().collect(),
            mode: run.config.mode,
            summary: Summary::of(&results),
            unrelated_empty,
            fitted,
        });
        all_results.push(results);
    }

    let mut out_of_sample = Vec::new();
    for mode in Mode::ALL {
        if a.fit_calibration {
            // The rows are already out of sample, for the model; the grid is not chosen.
            break;
        }
        let of_mode: Vec<usize> = (0..runs.len())
            .filter(|&i| runs[i].config.mode == mode)
            .collect();
        let results: Vec<&[QueryResult]> =
            of_mode.iter().map(|&i| all_results[i].as_slice()).collect();
        if a.cross_validate && !of_mode.is_empty() {
            let group_of: Vec<String> = queries
                .iter()
                .map(|q| q.namespace.clone().unwrap_or_default())
                .collect();
            let (folds, held) = leave_one_out(&results, &group_of, a.tune_metric);
            out_of_sample.push(OutOfSample {
                mode,
                method: "leave one namespace out".into(),
                metric: a.tune_metric,
                chosen: folds
                    .into_iter()
                    .map(|f| Chosen {
                        held_out: f.held_out,
                        label: runs[of_mode[f.chosen]].label(),
                    })
                    .collect(),
                summary: Summary::of(&held),
            });
        }
        if let (Some(t), Some(best)) = (&tuning, best_run(&results, a.tune_metric, |_| true)) {
            let run = &runs[of_mode[best]];
            eprintln!(
                "eval: {mode}: chosen on {}: {}, scoring on {}",
                t.split,
                run.label(),
                dataset.split
            );
            let mut run_engine = engine.reconfigured(run.config.clone())?;
            let held = evaluate(
                &mut corpus,
                &mut run_engine,
                &dataset,
                queries,
                run,
                &mut warnings,
            )?;
            out_of_sample.push(OutOfSample {
                mode,
                method: format!("chosen on {}", t.split),
                metric: a.tune_metric,
                chosen: vec![Chosen {
                    held_out: dataset.split.clone(),
                    label: run.label(),
                }],
                summary: Summary::of(&held),
            });
        }
    }
    for w in &warnings {
        eprintln!("eval: warning: {w}");
    }
    // Fitting with --tune-on scores the rows on --split; otherwise they are the table's.
    let (split, scored) = if a.fit_calibration && tuning.is_some() {
        (dataset.split.clone(), queries.len())
    } else {
        (table_set.split.clone(), table_queries.len())
    };
    let report = Report {
        dataset: dataset.name(),
        split,
        documents: dataset.docs.len(),
        queries: scored,
        depth: base.recall.depth,
        as_recalled: a.as_recalled,
        unrelated: unrelated.as_ref().map(|u| (u.name(), u.queries.len())),
        runs: reports,
        out_of_sample,
    };
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", table(&report));
    }
    Ok(())
}

/// A row's metrics, in the columns of [`table`]'s header (latencies apart).
fn metrics(summary: &Summary, as_recalled: bool) -> String {
    let m = &summary.mean;
    if as_recalled {
        format!(
            "{:.4}   {:.4}  {:8.2}  {:9.4}  {:6.4}  {:6.4}",
            m.ndcg_10,
            m.recall_5,
            m.returned,
            m.precision(),
            m.success,
            m.empty
        )
    } else {
        format!(
            "{:.4}   {:.4}  {:.4}  {:.4}  {:.4}",
            m.ndcg_10, m.recall_5, m.recall_10, m.recall_100, m.mrr_10
        )
    }
}

/// The report as text: one row per configuration, then Recall@10 by category if there are
/// categories.
fn table(report: &Report) -> String {
    let mut s = String::new();
    let depth_note = if report
        .runs
        .iter()
        .any(|r| r.settings.keys().any(|k| k.ends_with("depth")))
    {
        " unless a run sets its depth"
    } else {
        ""
    };
    let what = if report.as_recalled {
        format!(
            "as recalled: the configured threshold, count and budget, {} candidates per \
             list{depth_note}",
            report.depth
        )
    } else {
        format!(
            "{} candidates per list{depth_note}, ranking only (no threshold, budget or limit)",
            report.depth
        )
    };
    let _ = writeln!(
        s,
        "{} {}: {} queries, {} documents, {what}",
        report.dataset, report.split, report.queries, report.documents
    );
    let width = report
        .runs
        .iter()
        .map(|r| r.label.len())
        .chain(
            report
                .out_of_sample
                .iter()
                .map(|o| format!("mode={} ({})", o.mode, o.method).len()),
        )
        .max()
        .unwrap_or(0)
        .max(6);
    if report.as_recalled {
        let _ = writeln!(
            s,
            "{:width$}  nDCG@10  R@5     returned  precision  useful  empty   p50 ms  p95 ms",
            "config"
        );
    } else {
        let _ = writeln!(
            s,
            "{:width$}  nDCG@10  R@5     R@10    R@100   MRR@10  p50 ms  p95 ms",
            "config"
        );
    }
    for r in &report.runs {
        let _ = writeln!(
            s,
            "{:width$}  {}  {:6.2}  {:6.2}",
            r.label,
            metrics(&r.summary, report.as_recalled),
            r.summary.latency_p50_ms,
            r.summary.latency_p95_ms
        );
    }
    if let Some(f) = report.runs.iter().find_map(|r| r.fitted.as_ref()) {
        let _ = writeln!(
            s,
            "\nRelevance models: each row above {}; fitted on everything:",
            f.method
        );
        for r in &report.runs {
            if let Some(f) = &r.fitted {
                let _ = writeln!(
                    s,
                    "# {}: {} examples ({} relevant), log loss {:.4}\n{}",
                    r.label,
                    f.examples,
                    f.relevant,
                    f.log_loss,
                    fit::as_toml(r.mode, f)
                );
            }
        }
    }
    if let Some((other, n)) = &report.unrelated {
        let held_out = if report.runs.iter().any(|r| r.fitted.is_some()) {
            "; those of a namespace by models fitted without it"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "\nUnrelated queries ({n} of {other}, over the whole store{held_out}) answered with \
             nothing"
        );
        for r in &report.runs {
            let share = r.unrelated_empty.unwrap_or_default();
            let _ = writeln!(s, "{:width$}  {:.1}%", r.label, share * 100.0);
        }
    }
    if !report.out_of_sample.is_empty() {
        let _ = writeln!(
            s,
            "\nOut of sample: each mode's best setting by {} on other queries than those scored",
            report.out_of_sample[0].metric
        );
        for o in &report.out_of_sample {
            let label = format!("mode={} ({})", o.mode, o.method);
            let _ = writeln!(
                s,
                "{label:width$}  {}",
                metrics(&o.summary, report.as_recalled)
            );
            for c in &o.chosen {
                let _ = writeln!(s, "    {}: {}", c.held_out, c.label);
            }
        }
    }
    let categories: Vec<&String> = report
        .runs
        .first()
        .map(|r| r.summary.by_category.keys().collect())
        .unwrap_or_default();
    if !categories.is_empty() {
        let _ = writeln!(s, "\nRecall@10 by category (queries)");
        let _ = write!(s, "{:width$}", "config");
        for c in &categories {
            let n = report.runs[0].summary.by_category[*c].queries;
            let _ = write!(s, "  {:>10}", format!("{c} ({n})"));
        }
        let _ = writeln!(s);
        for r in &report.runs {
            let _ = write!(s, "{:width$}", r.label);
            for c in &categories {
                let _ = write!(s, "  {:>10.4}", r.summary.by_category[*c].mean.recall_10);
            }
            let _ = writeln!(s);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_expands_to_every_combination_last_axis_fastest() {
        let axes = [
            parse_axis("mode=fts,hybrid").unwrap(),
            parse_axis("k=20, 60").unwrap(),
        ];
        let runs = expand(&Config::default(), &axes).unwrap();
        let labels: Vec<String> = runs.iter().map(Run::label).collect();
        assert_eq!(
            labels,
            [
                "mode=fts k=20",
                "mode=fts k=60",
                "mode=hybrid k=20",
                "mode=hybrid k=60"
            ]
        );
        assert_eq!(runs[3].config.mode, Mode::Hybrid);
        assert_eq!(runs[2].config.recall.rrf_k, 20.0);
    }

    #[test]
    fn grid_values_are_checked_up_front() {
        for (bad, says) in [
            ("k", "expected KEY=V1,V2"),
            ("k=", "no values"),
            ("k=-1", "number >= 0"),
            ("depth=0", "whole number >= 1"),
            ("decay=maybe", "on or off"),
            (
                "fusion=borda",
                "weighted_score, weighted_max, weighted_z, rrf",
            ),
            ("mode=semantic", "unknown mode"),
            ("speed=fast", "unknown setting"),
        ] {
            let err = format!("{:#}", parse_axis(bad).unwrap_err());
            assert!(err.contains(says), "{bad}: {err}");
        }
        let big: Vec<Axis> = (0..3)
            .map(|_| parse_axis(&format!("k={}", ["1"; 10].join(","))).unwrap())
            .collect();
        assert!(expand(&Config::default(), &big).is_err());
    }

    #[test]
    fn settings_reach_the_config() {
        let mut c = Config::default();
        for (k, v) in [
            ("fusion", "weighted_score"),
            ("decay", "off"),
            ("depth", "200"),
            ("vector_depth", "30"),
            ("bm25", "0.5"),
            ("access", "0"),
            ("half_life", "7"),
        ] {
            apply(&mut c, k, v).unwrap();
        }
        assert_eq!(c.recall.fusion, "weighted_score");
        assert!(!c.decay.enabled);
        assert_eq!((c.recall.depth, c.recall.vector_depth), (200, 30));
        assert_eq!(c.recall.weights.get("bm25"), 0.5);
        assert_eq!(c.recall.weights.get("access"), 0.0);
        assert_eq!(c.decay.half_life_days, 7.0);
    }
}
