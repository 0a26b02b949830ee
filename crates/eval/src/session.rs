//! The corpus in a store and the queries asked of it: what every row of an evaluation shares.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use oro_mem_core::config::DedupConfig;
use oro_mem_core::store::MemoryStore;
use oro_mem_core::{
    Error, ErrorKind, Filter, MemoryId, MemoryType, Mode, NewMemory, Query, Result, Source,
    Timestamp,
};
use oro_mem_engine::{remember_batch, Answer, Engine};

use crate::fitting::{self, FitOn};
use crate::grid::Setting;
use crate::metrics::QueryResult;
use crate::plan::Event;
use crate::{CachedEmbedder, Dataset, EmbeddingCache, EvalQuery, QueryScores};

/// The corpus in a store, the engine every row's is reconfigured from, and the warnings
/// recall gave so far (each once).
pub(crate) struct Session {
    pub(crate) store: Box<dyn MemoryStore>,
    doc_of: HashMap<MemoryId, usize>,
    /// "Now" per namespace (`""` = all): the newest `created_at`, or the plan's `now`.
    now: HashMap<String, Timestamp>,
    pub(crate) engine: Engine,
    pub(crate) warnings: Vec<String>,
}

impl Session {
    /// Imports `dataset`'s corpus into `store` (duplicates kept: a benchmark's documents are
    /// what they are), each document's time its `created_at` or else `now` or the present.
    pub(crate) fn import(
        mut store: Box<dyn MemoryStore>,
        engine: Engine,
        dataset: &Dataset,
        now: Option<Timestamp>,
    ) -> Result<Session> {
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
                    for key in [d.namespace.clone().unwrap_or_default(), String::new()] {
                        let n = newest.entry(key).or_insert(at);
                        *n = (*n).max(at);
                    }
                    // A title is the memory's summary, searched with its own weight
                    // (text::LEXICAL_FIELDS).
                    // A kind that is not one of oro-mem's types is a lesson.
                    let kind = d.kind.as_deref().and_then(|k| k.parse().ok());
                    let mut m = NewMemory::new(d.body(), kind.unwrap_or(MemoryType::Lesson))
                        .source(Source::Import)
                        .created_at(at)
                        .tags(d.tags.iter().cloned());
                    m.summary = d.summary().map(str::to_string);
                    if let Some(ns) = &d.namespace {
                        m = m.namespace(ns.clone());
                    }
                    m.session = d.session.clone();
                    m
                })
                .collect();
            let outcomes = remember_batch(&mut store, batch, &dedup)
                .map_err(|e| e.context(format!("cannot import {}", dataset.dir.display())))?;
            for (i, o) in outcomes.iter().enumerate() {
                doc_of.insert(o.id(), start + i);
            }
        }
        if let Some(now) = now {
            newest.values_mut().for_each(|t| *t = now);
        }
        Ok(Session {
            store,
            doc_of,
            now: newest,
            engine,
            warnings: Vec::new(),
        })
    }

    /// Embeds the corpus through the cache at `cache` (in memory without one); queries are
    /// embedded by the bare model, so a query's latency includes embedding it, as in
    /// `recall`.
    pub(crate) fn embed(&mut self, cache: Option<&Path>, on: &mut dyn FnMut(Event)) -> Result<()> {
        let model = self.engine.embedder()?;
        let cache = match cache {
            Some(path) => EmbeddingCache::create(path)?,
            None => EmbeddingCache::in_memory()?,
        };
        let cached = Arc::new(CachedEmbedder::new(model, cache));
        let mut caching = self
            .engine
            .reconfigured(self.engine.config().clone())?
            .with_embedder(cached.clone());
        let started = Instant::now();
        let mut next_line = 0;
        caching.embed_missing(&mut self.store, 64, |p| {
            if p.total > 0 && (p.done >= next_line || p.done == p.total) {
                on(Event::Embedding {
                    done: p.done,
                    total: p.total,
                });
                next_line = p.done + p.total.div_ceil(10);
            }
        })?;
        let stats = cached.stats();
        on(Event::Embedded {
            seconds: started.elapsed().as_secs_f64(),
            cached: stats.hits,
            by_the_model: stats.misses,
        });
        Ok(())
    }

    /// "Now" for a query of `namespace` (`None`: the whole store).
    pub(crate) fn now(&self, namespace: Option<&str>) -> Timestamp {
        self.now[namespace.unwrap_or_default()]
    }

    /// The corpus document `id` was imported from.
    pub(crate) fn doc<'d>(&self, dataset: &'d Dataset, id: MemoryId) -> &'d str {
        &dataset.docs[self.doc_of[&id]].id
    }

    /// Asks `text` of the memories of `namespace` (`None`: the whole store) with `engine`,
    /// at the namespace's "now"; an error says it was `what`.
    pub(crate) fn ask(
        &mut self,
        engine: &mut Engine,
        what: &str,
        text: &str,
        namespace: Option<&str>,
    ) -> Result<Answer> {
        let filter = Filter {
            namespace: namespace.map(str::to_string),
            ..Filter::default()
        };
        let query = Query::new(text, &filter).now(self.now(namespace));
        engine
            .recall(&mut self.store, &query, false)
            .map_err(|e| e.context(what))
    }

    /// Asks `queries` of `dataset` (the corpus's, or another split of it) with `setting`'s
    /// configuration, each in its namespace, and scores each answer by the qrels.
    pub(crate) fn evaluate(
        &mut self,
        dataset: &Dataset,
        queries: &[EvalQuery],
        setting: &Setting,
    ) -> Result<Vec<QueryResult>> {
        let mut engine = self
            .engine
            .reconfigured(setting.config.clone())
            .map_err(|e| e.context(setting.label()))?;
        let mut out = Vec::with_capacity(queries.len());
        for q in queries {
            let what = format!("query {}", q.id);
            let started = Instant::now();
            let answer = self.ask(&mut engine, &what, &q.text, q.namespace.as_deref())?;
            let latency_ms = started.elapsed().as_secs_f64() * 1e3;
            answered_as_asked(&what, setting.config.mode, &answer)?;
            for w in answer.recall.warnings {
                if !self.warnings.contains(&w) {
                    self.warnings.push(w);
                }
            }
            let ranked: Vec<&str> = answer
                .recall
                .results
                .iter()
                .map(|r| self.doc(dataset, r.memory.id))
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

    /// The share of `queries` (of `dataset`) that recall answers with nothing, each asked
    /// where `scope` says. With `fitted_on` (the examples `setting`'s models were fitted on,
    /// and the extra ones), the queries of a namespace (a LoCoMo conversation, a repository)
    /// are asked with models fitted without it: the fit may have included these very
    /// questions.
    pub(crate) fn empty_share(
        &mut self,
        dataset: &Dataset,
        queries: &[EvalQuery],
        scope: Scope,
        setting: &Setting,
        fitted_on: Option<FitOn<'_>>,
    ) -> Result<f64> {
        // The group each query's models leave out (none: the models fitted on everything).
        let mut by_group: BTreeMap<Option<String>, Vec<&EvalQuery>> = BTreeMap::new();
        for q in queries {
            let held =
                (fitted_on.is_some() && q.namespace.is_some()).then(|| fitting::group(dataset, q));
            by_group.entry(held).or_default().push(q);
        }
        let mut empty = 0usize;
        for (held, queries) in &by_group {
            let setting = match (fitted_on, held) {
                (Some(on), Some(held)) => {
                    let (relevance, answerable) = fitting::models(on, Some(held));
                    fitting::calibrated(setting, &relevance, &answerable)
                }
                _ => setting.clone(),
            };
            let mut engine = self.engine.reconfigured(setting.config.clone())?;
            for q in queries {
                let (what, namespace) = match scope {
                    Scope::WholeStore => (format!("unrelated query {}", q.id), None),
                    Scope::OwnNamespace => (format!("query {}", q.id), q.namespace.as_deref()),
                };
                let answer = self.ask(&mut engine, &what, &q.text, namespace)?;
                answered_as_asked(&what, setting.config.mode, &answer)?;
                empty += usize::from(answer.recall.results.is_empty());
            }
        }
        Ok(empty as f64 / queries.len().max(1) as f64)
    }
}

/// Where [`Session::empty_share`] asks its queries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scope {
    /// Over the whole store: another dataset's queries, whose namespaces are not the
    /// corpus's.
    WholeStore,
    /// In the query's own namespace, as a judged query is asked.
    OwnNamespace,
}

/// An error unless `answer` came from the mode `asked` for: a row is scored on the mode it
/// names, not on FTS standing in for a vector search that failed.
fn answered_as_asked(what: &str, asked: Mode, answer: &Answer) -> Result<()> {
    if answer.mode == asked {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::Embedding,
        format!(
            "{what}: asked for {asked} but {} answered: {}",
            answer.mode,
            answer.recall.warnings.join("; ")
        ),
    ))
}
