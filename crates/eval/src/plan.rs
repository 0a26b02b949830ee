//! An evaluation from start to end: what to run ([`Plan`]), what happens on the way
//! ([`Event`]), and [`run`], which imports the corpus into a store, asks every query of every
//! setting through the same engine as `oro-mem recall`, and returns the [`Report`].

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use oro_mem_core::store::MemoryStore;
use oro_mem_core::{Config, Error, Mode, Result, Timestamp};
use oro_mem_engine::Engine;

use crate::calibration::Example;
use crate::fitting::{self, FitOn, HeldOut};
use crate::grid::{self, ranking_only, Axis, Setting, RANKED};
use crate::metrics::QueryResult;
use crate::report::{Chosen, OutOfSample, Report, Row};
use crate::session::{Scope, Session};
use crate::tune::{best_run, leave_one_out, Metric};
use crate::{Dataset, EvalQuery, Summary};

/// What an evaluation runs: a dataset split, the settings (a base configuration changed by
/// [`set`](Plan::set) and expanded by [`grid`](Plan::grid)), how recall is scored, and how
/// settings are chosen out of sample.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The benchmark's directory (BEIR layout).
    pub dataset: PathBuf,
    /// The qrels split scored.
    pub split: String,
    /// The mode, instead of the configuration's.
    pub mode: Option<Mode>,
    /// Settings for every run, applied in order after the ranking-only changes (so that
    /// `depth` here overrides [`depth`](Plan::depth)).
    pub set: Vec<(String, String)>,
    /// Every combination of these axes' values is a row.
    pub grid: Vec<Axis>,
    /// Candidates per list (lexical and vector) when ranking only.
    pub depth: usize,
    /// Score what recall returns with the configured threshold, count and budget, instead of
    /// a ranking of [`RANKED`].
    pub as_recalled: bool,
    /// "Now" for time decay and recency, instead of the newest `created_at` per namespace.
    pub now: Option<Timestamp>,
    /// Only the first this many judged queries.
    pub queries: Option<usize>,
    /// Leave out the queries of these categories (`metadata.category`; LoCoMo's 5, the
    /// adversarial questions, to compare with published LoCoMo retrieval results).
    pub skip_categories: Vec<String>,
    /// The embedding cache file; `None` embeds in memory and keeps nothing.
    pub cache: Option<PathBuf>,
    /// How each mode's best setting is also scored out of sample.
    pub holdout: Holdout,
    /// What the best setting is chosen by.
    pub metric: Metric,
    /// Another dataset whose judged (test) queries are asked over the whole store, to count
    /// those answered with nothing (as recalled only).
    pub unrelated: Option<PathBuf>,
    /// Fit each setting's relevance model and score it out of sample (as recalled only).
    pub fit: Option<Fit>,
}

impl Plan {
    /// A plan for `split` of the dataset in `dir`: the configuration's own mode, a ranking of
    /// 100 candidates per list, no grid, no cache, nothing out of sample.
    pub fn new(dir: impl Into<PathBuf>, split: impl Into<String>) -> Plan {
        Plan {
            dataset: dir.into(),
            split: split.into(),
            mode: None,
            set: Vec::new(),
            grid: Vec::new(),
            depth: RANKED,
            as_recalled: false,
            now: None,
            queries: None,
            skip_categories: Vec::new(),
            cache: None,
            holdout: Holdout::None,
            metric: Metric::default(),
            unrelated: None,
            fit: None,
        }
    }

    /// The base configuration `base` becomes, and the settings of every row.
    fn settings(&self, mut base: Config) -> Result<(Config, Vec<Setting>)> {
        if let Some(m) = self.mode {
            base.mode = m;
        }
        // Ranking only first, so that `set`'s depth overrides `depth`. As recalled, the
        // configuration stays as it is, except that the mode asked for must answer.
        if self.as_recalled {
            base.fallback_to_fts = false;
        } else {
            ranking_only(&mut base, self.depth);
        }
        for (k, v) in &self.set {
            grid::set(&mut base, k, v).map_err(|e| e.context(format!("--set {k}={v}")))?;
        }
        let settings = grid::expand(&base, &self.grid)?;
        Ok((base, settings))
    }

    fn check(&self) -> Result<()> {
        if !self.as_recalled && (self.unrelated.is_some() || self.fit.is_some()) {
            return Err(Error::invalid_input(
                "counting unrelated queries answered with nothing, and fitting a relevance \
                 model, score recall as recalled: set as_recalled",
            ));
        }
        Ok(())
    }
}

/// How each mode's best setting is chosen on some queries and scored on others.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Holdout {
    /// Not at all: every row is scored on the queries it would be chosen on.
    #[default]
    None,
    /// Leave one namespace (conversation) out at a time: the best setting on the others,
    /// scored on it.
    EachNamespace,
    /// The best setting on this other split's queries (say train), scored on the plan's
    /// split (say test); the rows are the other split's.
    Split(String),
}

/// Fitting each setting's relevance model (`recall.calibration`) on the judged queries' best
/// candidates; each row is then scored as recalled on queries the model was not fitted on
/// (as [`Plan::holdout`] says), and reports the model fitted on everything.
#[derive(Clone, Debug, Default)]
pub struct Fit {
    /// Also fit on these examples (written by [`features`](Fit::features) from another
    /// dataset).
    pub also: Vec<PathBuf>,
    /// Also fit on candidates of this other dataset's queries (of its train split when it has
    /// one), all irrelevant, asked over the whole store.
    pub unrelated: Option<PathBuf>,
    /// Leave these features out of the model.
    pub without: Vec<String>,
    /// Features of the query the relevance model reads too (it leaves them to the answerable
    /// model otherwise): `memories`, say (see [`calibration::fit`](crate::calibration::fit)).
    pub relevance_with: Vec<String>,
    /// Write the examples fitted on (JSON lines) to this file.
    pub features: Option<PathBuf>,
}

/// What [`run`] reports on its way, for a person watching.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// Ranking fewer candidates than Recall@100 needs.
    ShallowDepth(usize),
    /// The corpus is in the store.
    Imported {
        /// Documents imported.
        documents: usize,
        /// Seconds it took.
        seconds: f64,
    },
    /// Embedding the corpus, so far.
    Embedding {
        /// Documents embedded.
        done: u64,
        /// Documents to embed.
        total: u64,
    },
    /// The corpus is embedded.
    Embedded {
        /// Seconds it took.
        seconds: f64,
        /// Embeddings read from the cache.
        cached: u64,
        /// Embeddings the model made.
        by_the_model: u64,
    },
    /// Starting a row of a grid.
    Row {
        /// Its number, from 1.
        number: usize,
        /// Rows in all.
        of: usize,
        /// Its setting's label.
        label: String,
    },
    /// A mode's best setting on one split, about to be scored on another.
    Chosen {
        /// The mode.
        mode: Mode,
        /// The split it was chosen on.
        on: String,
        /// The setting's label.
        label: String,
        /// The split it is scored on.
        scoring: String,
    },
    /// Something the figures may not mean what they seem to (each said once).
    Warning(String),
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::ShallowDepth(depth) => write!(
                f,
                "--depth {depth} < {RANKED}: Recall@100 counts only what the candidates hold"
            ),
            Event::Imported { documents, seconds } => {
                write!(f, "imported {documents} documents in {seconds:.1} s")
            }
            Event::Embedding { done, total } => write!(f, "embedding corpus {done}/{total}"),
            Event::Embedded {
                seconds,
                cached,
                by_the_model,
            } => write!(
                f,
                "corpus embedded in {seconds:.1} s ({cached} from cache, {by_the_model} by the \
                 model)"
            ),
            Event::Row { number, of, label } => write!(f, "[{number}/{of}] {label}"),
            Event::Chosen {
                mode,
                on,
                label,
                scoring,
            } => write!(f, "{mode}: chosen on {on}: {label}, scoring on {scoring}"),
            Event::Warning(w) => write!(f, "warning: {w}"),
        }
    }
}

/// Runs `plan` over `base`: imports the dataset's corpus into `store` (an empty scratch
/// store: duplicates are kept and nothing is cleaned up), embeds it when a setting uses
/// vectors, and scores every setting, telling `on` how it goes.
///
/// # Errors
///
/// A dataset that cannot be read or is malformed, a setting out of its key's domain, a plan
/// that asks for what it cannot do (leaving namespaces out of queries that have none, say),
/// and any failure of the store or the model, each saying what it was doing.
pub fn run(
    plan: &Plan,
    base: Config,
    store: Box<dyn MemoryStore>,
    on: &mut dyn FnMut(Event),
) -> Result<Report> {
    plan.check()?;
    if plan.depth < RANKED && !plan.as_recalled {
        on(Event::ShallowDepth(plan.depth));
    }
    let inputs = Inputs::load(plan, on)?;
    let (base, settings) = plan.settings(base)?;
    let started = Instant::now();
    let engine = Engine::from_config(base.clone())?;
    let session = Session::import(store, engine, &inputs.dataset, plan.now)?;
    on(Event::Imported {
        documents: inputs.dataset.docs.len(),
        seconds: started.elapsed().as_secs_f64(),
    });
    let mut evaluation = Evaluation {
        plan,
        inputs,
        session,
        examples_of: HashMap::new(),
    };
    if settings.iter().any(|s| s.config.mode.uses_vectors()) {
        evaluation.session.embed(plan.cache.as_deref(), on)?;
    }
    let mut rows = Vec::with_capacity(settings.len());
    let mut results = Vec::with_capacity(settings.len());
    for (i, setting) in settings.iter().enumerate() {
        if settings.len() > 1 {
            on(Event::Row {
                number: i + 1,
                of: settings.len(),
                label: setting.label(),
            });
        }
        let (row, scored) = evaluation.row(setting)?;
        rows.push(row);
        results.push(scored);
    }
    let out_of_sample = evaluation.out_of_sample(&settings, &results, on)?;
    for w in &evaluation.session.warnings {
        on(Event::Warning(w.clone()));
    }
    Ok(evaluation.report(base.recall.depth, rows, out_of_sample))
}

/// The datasets and examples a plan reads, read before anything is imported.
struct Inputs {
    dataset: Dataset,
    /// The split settings are chosen on ([`Holdout::Split`]).
    tuning: Option<Dataset>,
    unrelated: Option<Dataset>,
    fit_unrelated: Option<Dataset>,
    /// The extra examples to fit on ([`Fit::also`]), without the features left out.
    also: Vec<Example>,
}

impl Inputs {
    fn load(plan: &Plan, on: &mut dyn FnMut(Event)) -> Result<Inputs> {
        let load = |split: &str| -> Result<Dataset> {
            let mut dataset = Dataset::load(&plan.dataset, split)?;
            let kept = |q: &EvalQuery| {
                q.category
                    .as_ref()
                    .is_none_or(|c| !plan.skip_categories.contains(c))
            };
            dataset.queries.retain(kept);
            dataset.no_relevant.retain(kept);
            Ok(dataset)
        };
        let dataset = load(&plan.split)?;
        let tuning = match &plan.holdout {
            Holdout::Split(split) => Some(load(split)?),
            _ => None,
        };
        if let Some(t) = &tuning {
            if t.docs.len() != dataset.docs.len() {
                return Err(Error::invalid_input(format!(
                    "--tune-on {}: the corpus differs from --split's",
                    t.split
                )));
            }
        }
        let inputs = Inputs {
            tuning,
            unrelated: other(plan.unrelated.as_deref(), "--unrelated", false)?,
            fit_unrelated: other(
                plan.fit.as_ref().and_then(|f| f.unrelated.as_deref()),
                "--fit-unrelated",
                true,
            )?,
            also: match &plan.fit {
                Some(fit) => {
                    let also = fit
                        .also
                        .iter()
                        .map(|p| fitting::read_examples(p))
                        .collect::<Result<Vec<_>>>()?;
                    fitting::without(also.concat(), &fit.without)
                }
                None => Vec::new(),
            },
            dataset,
        };
        inputs.check(plan, on)?;
        Ok(inputs)
    }

    fn check(&self, plan: &Plan, on: &mut dyn FnMut(Event)) -> Result<()> {
        let (dataset, queries) = self.scored(plan);
        if plan.holdout == Holdout::EachNamespace && queries.iter().any(|q| q.namespace.is_none()) {
            return Err(Error::invalid_input(format!(
                "--cross-validate leaves one namespace (conversation) out at a time, and some \
                 queries of {} have none; use --tune-on SPLIT",
                dataset.name()
            )));
        }
        if let (Some(u), Some(f)) = (&self.unrelated, &self.fit_unrelated) {
            if u.dir == f.dir
                && u.split == f.split
                && u.queries.iter().any(|q| q.namespace.is_none())
            {
                on(Event::Warning(format!(
                    "--unrelated asks queries of {} that --fit-unrelated fits on (they have no \
                     namespace to leave out): its share is in sample",
                    u.name()
                )));
            }
        }
        Ok(())
    }

    /// The split the plan scores and its queries.
    fn scored(&self, plan: &Plan) -> (&Dataset, &[EvalQuery]) {
        (&self.dataset, first(&self.dataset, plan.queries))
    }

    /// The split the rows are scored on (the tuning split, when settings are chosen on one)
    /// and its queries.
    fn table(&self, plan: &Plan) -> (&Dataset, &[EvalQuery]) {
        match &self.tuning {
            Some(t) => (t, first(t, plan.queries)),
            None => self.scored(plan),
        }
    }
}

/// The first `n` queries of `dataset`, or all of them.
fn first(dataset: &Dataset, n: Option<usize>) -> &[EvalQuery] {
    &dataset.queries[..n.unwrap_or(usize::MAX).min(dataset.queries.len())]
}

/// Another dataset named by `flag`: its test split, or its train split when `train_if_any`
/// and it has one (`--unrelated` asks the other dataset's test queries; `--fit-unrelated`
/// fits on its train queries when it has some).
fn other(dir: Option<&Path>, flag: &str, train_if_any: bool) -> Result<Option<Dataset>> {
    dir.map(|dir| {
        let train = train_if_any && dir.join("qrels").join("train.tsv").is_file();
        Dataset::load(dir, if train { "train" } else { "test" })
    })
    .transpose()
    .map_err(|e| e.context(flag))
}

/// An evaluation under way.
struct Evaluation<'p> {
    plan: &'p Plan,
    inputs: Inputs,
    session: Session,
    /// The examples of each ranking fitted so far: fitting is slow, and settings that rank
    /// alike (say, differing in min_relevance only) share their examples.
    examples_of: HashMap<String, Vec<Example>>,
}

/// What a model is fitted on: `examples`, and `plan`'s other examples and features.
fn fit_on<'a>(plan: &'a Plan, inputs: &'a Inputs, examples: &'a [Example]) -> FitOn<'a> {
    FitOn {
        examples,
        also: &inputs.also,
        relevance_with: plan
            .fit
            .as_ref()
            .map_or(&[][..], |f| f.relevance_with.as_slice()),
    }
}

impl Evaluation<'_> {
    /// Scores `setting`: its row and its results, query by query.
    fn row(&mut self, setting: &Setting) -> Result<(Row, Vec<QueryResult>)> {
        let (results, fitted, setting, examples) = if self.plan.fit.is_some() {
            let key = self.examples(setting)?;
            let examples = &self.examples_of[&key];
            let (table, table_queries) = self.inputs.table(self.plan);
            let held_out = match &self.plan.holdout {
                Holdout::EachNamespace => HeldOut::EachNamespace(table_queries),
                Holdout::Split(_) => {
                    let (dataset, queries) = self.inputs.scored(self.plan);
                    HeldOut::Split(dataset, queries)
                }
                Holdout::None => HeldOut::InSample(table_queries),
            };
            let (results, fitted) = self.session.score_fitted(
                table,
                setting,
                fit_on(self.plan, &self.inputs, examples),
                held_out,
            )?;
            // The rest of the row (the shares answered with nothing) uses the model fitted on
            // everything, but for queries of a namespace (see `Session::empty_share`).
            let setting = fitting::calibrated(setting, &fitted.calibration, &fitted.answerable);
            (results, Some(fitted), setting, Some(examples))
        } else {
            let (table, table_queries) = self.inputs.table(self.plan);
            let results = self.session.evaluate(table, table_queries, setting)?;
            (results, None, setting.clone(), None)
        };
        let fitted_on = examples.map(|e| fit_on(self.plan, &self.inputs, e));
        let unrelated_empty = match &self.inputs.unrelated {
            Some(other) => Some(self.session.empty_share(
                other,
                &other.queries,
                Scope::WholeStore,
                &setting,
                fitted_on,
            )?),
            None => None,
        };
        let dataset = &self.inputs.dataset;
        let no_relevant_empty = if self.plan.as_recalled && !dataset.no_relevant.is_empty() {
            Some(self.session.empty_share(
                dataset,
                &dataset.no_relevant,
                Scope::OwnNamespace,
                &setting,
                fitted_on,
            )?)
        } else {
            None
        };
        let row = Row {
            label: setting.label(),
            settings: setting.settings.iter().cloned().collect(),
            mode: setting.config.mode,
            summary: Summary::of(&results),
            unrelated_empty,
            no_relevant_empty,
            fitted,
        };
        Ok((row, results))
    }

    /// The key of `setting`'s examples in `examples_of`, collected (and written to
    /// [`Fit::features`]) unless a setting that ranks alike already did.
    fn examples(&mut self, setting: &Setting) -> Result<String> {
        let fit = self.plan.fit.as_ref().expect("fitting");
        let mut ranking = setting.config.clone();
        ranking_only(&mut ranking, RANKED);
        let key = toml::to_string(&ranking)
            .map_err(|e| Error::config(format!("{}: {e}", setting.label())))?;
        if self.examples_of.contains_key(&key) {
            return Ok(key);
        }
        let (table, table_queries) = self.inputs.table(self.plan);
        let mut examples = self.session.collect(table, true, table_queries, setting)?;
        // Queries with nothing to find are what an answerable model learns to abstain on.
        examples.extend(
            self.session
                .collect(table, true, &table.no_relevant, setting)?,
        );
        if let Some(other) = &self.inputs.fit_unrelated {
            examples.extend(
                self.session
                    .collect(table, false, &other.queries, setting)?,
            );
        }
        if let Some(path) = &fit.features {
            fitting::write_examples(path, &examples)?;
        }
        self.examples_of
            .insert(key.clone(), fitting::without(examples, &fit.without));
        Ok(key)
    }

    /// Each mode's best setting, chosen on other queries than those it is scored on, as the
    /// plan's holdout says. None when fitting: the rows are already out of sample, for the
    /// model, and the grid is not chosen.
    fn out_of_sample(
        &mut self,
        settings: &[Setting],
        results: &[Vec<QueryResult>],
        on: &mut dyn FnMut(Event),
    ) -> Result<Vec<OutOfSample>> {
        if self.plan.fit.is_some() {
            return Ok(Vec::new());
        }
        let metric = self.plan.metric;
        let mut out = Vec::new();
        for mode in Mode::ALL {
            let of_mode: Vec<usize> = (0..settings.len())
                .filter(|&i| settings[i].config.mode == mode)
                .collect();
            let results: Vec<&[QueryResult]> =
                of_mode.iter().map(|&i| results[i].as_slice()).collect();
            let (dataset, queries) = self.inputs.scored(self.plan);
            match &self.plan.holdout {
                Holdout::EachNamespace if !of_mode.is_empty() => {
                    let group_of: Vec<String> = queries
                        .iter()
                        .map(|q| q.namespace.clone().unwrap_or_default())
                        .collect();
                    let (folds, held) = leave_one_out(&results, &group_of, metric);
                    out.push(OutOfSample {
                        mode,
                        method: "leave one namespace out".into(),
                        metric,
                        chosen: folds
                            .into_iter()
                            .map(|f| Chosen {
                                held_out: f.held_out,
                                label: settings[of_mode[f.chosen]].label(),
                            })
                            .collect(),
                        summary: Summary::of(&held),
                    });
                }
                Holdout::Split(on_split) => {
                    let Some(best) = best_run(&results, metric, |_| true) else {
                        continue;
                    };
                    let setting = &settings[of_mode[best]];
                    on(Event::Chosen {
                        mode,
                        on: on_split.clone(),
                        label: setting.label(),
                        scoring: dataset.split.clone(),
                    });
                    let held = self.session.evaluate(dataset, queries, setting)?;
                    out.push(OutOfSample {
                        mode,
                        method: format!("chosen on {on_split}"),
                        metric,
                        chosen: vec![Chosen {
                            held_out: dataset.split.clone(),
                            label: setting.label(),
                        }],
                        summary: Summary::of(&held),
                    });
                }
                _ => {}
            }
        }
        Ok(out)
    }

    fn report(&self, depth: usize, runs: Vec<Row>, out_of_sample: Vec<OutOfSample>) -> Report {
        let (dataset, queries) = self.inputs.scored(self.plan);
        // Fitting with a split to choose on scores the rows on the plan's split; otherwise
        // they are the table's.
        let (split, scored) = match (&self.plan.fit, &self.inputs.tuning) {
            (Some(_), Some(_)) => (dataset.split.clone(), queries.len()),
            _ => {
                let (table, table_queries) = self.inputs.table(self.plan);
                (table.split.clone(), table_queries.len())
            }
        };
        Report {
            dataset: dataset.name(),
            split,
            documents: dataset.docs.len(),
            queries: scored,
            depth,
            as_recalled: self.plan.as_recalled,
            unrelated: self
                .inputs
                .unrelated
                .as_ref()
                .map(|u| (u.name(), u.queries.len())),
            no_relevant: if self.plan.as_recalled {
                dataset.no_relevant.len()
            } else {
                0
            },
            runs,
            out_of_sample,
        }
    }
}
