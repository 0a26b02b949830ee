//! What an evaluation scored ([`Report`]), as JSON (`serde`) or as a table (`Display`).

use std::collections::BTreeMap;
use std::fmt;

use oro_mem_core::Mode;
use serde::Serialize;

use crate::fitting::{self, Fitted};
use crate::tune::Metric;
use crate::Summary;

/// What an evaluation scored: one row per setting, and each mode's best setting scored out of
/// sample when the plan asked for it.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The dataset's name.
    pub dataset: String,
    /// The split the rows were scored on.
    pub split: String,
    /// Documents in the corpus.
    pub documents: usize,
    /// Queries scored per row.
    pub queries: usize,
    /// Candidates per list.
    pub depth: usize,
    /// Whether recall was scored as the product returns it, rather than as a ranking.
    pub as_recalled: bool,
    /// The unrelated dataset and how many of its queries were asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unrelated: Option<(String, usize)>,
    /// As recalled: how many queries were marked `no_relevant` (asked in their namespace,
    /// whose right answer is none).
    #[serde(skip_serializing_if = "is_zero")]
    pub no_relevant: usize,
    /// One row per setting, in the grid's order.
    pub runs: Vec<Row>,
    /// Each mode's best setting chosen on other queries than those it is scored on.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub out_of_sample: Vec<OutOfSample>,
}

/// What one setting scored.
#[derive(Debug, Serialize)]
pub struct Row {
    /// The setting's grid values (`mode=hybrid k=60`).
    pub label: String,
    /// The same, by key.
    pub settings: BTreeMap<String, String>,
    /// The mode it ran in.
    pub mode: Mode,
    /// Its scores.
    #[serde(flatten)]
    pub summary: Summary,
    /// The share of the unrelated dataset's queries answered with nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unrelated_empty: Option<f64>,
    /// As recalled: the share of the queries marked `no_relevant` answered with nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_relevant_empty: Option<f64>,
    /// When fitting: the relevance model and how the row was scored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fitted: Option<Fitted>,
}

/// One mode scored out of sample.
#[derive(Debug, Serialize)]
pub struct OutOfSample {
    /// The mode.
    pub mode: Mode,
    /// How the setting was chosen.
    pub method: String,
    /// What it was chosen by.
    pub metric: Metric,
    /// The setting chosen for each held-out group (one, for a split).
    pub chosen: Vec<Chosen>,
    /// What the chosen settings scored on the queries they were not chosen on.
    #[serde(flatten)]
    pub summary: Summary,
}

/// The setting chosen for queries it was not chosen on.
#[derive(Debug, Serialize)]
pub struct Chosen {
    /// The held-out namespace, or the split scored.
    pub held_out: String,
    /// The setting's label.
    pub label: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The report as a table: one row per setting, its any/all recall, then the models fitted,
/// the unrelated queries and those with nothing relevant answered with nothing, and the
/// out-of-sample scores when there are any, and Recall@10 by category if there are
/// categories.
impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.label_width();
        self.write_rows(f, width)?;
        self.write_any_all(f, width)?;
        self.write_models(f)?;
        self.write_unrelated(f, width)?;
        self.write_no_relevant(f, width)?;
        self.write_out_of_sample(f, width)?;
        self.write_categories(f, width)
    }
}

impl Report {
    /// The width of the label column.
    fn label_width(&self) -> usize {
        self.runs
            .iter()
            .map(|r| r.label.len())
            .chain(
                self.out_of_sample
                    .iter()
                    .map(|o| format!("mode={} ({})", o.mode, o.method).len()),
            )
            .max()
            .unwrap_or(0)
            .max(6)
    }

    /// What was scored, how, and a row per setting.
    fn write_rows(&self, f: &mut fmt::Formatter<'_>, width: usize) -> fmt::Result {
        let depth_note = if self
            .runs
            .iter()
            .any(|r| r.settings.keys().any(|k| k.ends_with("depth")))
        {
            " unless a run sets its depth"
        } else {
            ""
        };
        let what = if self.as_recalled {
            format!(
                "as recalled: the configured threshold, count and budget, {} candidates per \
                 list{depth_note}",
                self.depth
            )
        } else {
            format!(
                "{} candidates per list{depth_note}, ranking only (no threshold, budget or \
                 limit)",
                self.depth
            )
        };
        writeln!(
            f,
            "{} {}: {} queries, {} documents, {what}",
            self.dataset, self.split, self.queries, self.documents
        )?;
        if self.as_recalled {
            writeln!(
                f,
                "{:width$}  nDCG@10  R@5     returned  precision  useful  empty   p50 ms  p95 ms",
                "config"
            )?;
        } else {
            writeln!(
                f,
                "{:width$}  nDCG@10  R@5     R@10    R@100   MRR@10  p50 ms  p95 ms",
                "config"
            )?;
        }
        for r in &self.runs {
            writeln!(
                f,
                "{:width$}  {}  {:6.2}  {:6.2}",
                r.label,
                metrics(&r.summary, self.as_recalled),
                r.summary.latency_p50_ms,
                r.summary.latency_p95_ms
            )?;
        }
        Ok(())
    }

    /// Each row's recall-any and recall-all at 5 and 10.
    fn write_any_all(&self, f: &mut fmt::Formatter<'_>, width: usize) -> fmt::Result {
        writeln!(
            f,
            "\nQueries with any / all of their relevant documents in the top k\n\
             {:width$}  any@5   all@5   any@10  all@10",
            "config"
        )?;
        for r in &self.runs {
            let m = &r.summary.mean;
            writeln!(
                f,
                "{:width$}  {:.4}  {:.4}  {:.4}  {:.4}",
                r.label, m.recall_any_5, m.recall_all_5, m.recall_any_10, m.recall_all_10
            )?;
        }
        Ok(())
    }

    /// Each row's relevance model fitted on everything, as configuration sections.
    fn write_models(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(first) = self.runs.iter().find_map(|r| r.fitted.as_ref()) else {
            return Ok(());
        };
        writeln!(
            f,
            "\nRelevance models: each row above {}; fitted on everything:",
            first.method
        )?;
        for r in &self.runs {
            if let Some(fitted) = &r.fitted {
                writeln!(
                    f,
                    "# {}: {} examples ({} relevant), log loss {:.4}\n{}",
                    r.label,
                    fitted.examples,
                    fitted.relevant,
                    fitted.log_loss,
                    fitting::as_toml(r.mode, fitted)
                )?;
            }
        }
        Ok(())
    }

    /// Each row's share of unrelated queries answered with nothing.
    fn write_unrelated(&self, f: &mut fmt::Formatter<'_>, width: usize) -> fmt::Result {
        let Some((other, n)) = &self.unrelated else {
            return Ok(());
        };
        let held_out = if self.runs.iter().any(|r| r.fitted.is_some()) {
            "; those of a namespace by models fitted without it"
        } else {
            ""
        };
        writeln!(
            f,
            "\nUnrelated queries ({n} of {other}, over the whole store{held_out}) answered with \
             nothing"
        )?;
        for r in &self.runs {
            let share = r.unrelated_empty.unwrap_or_default();
            writeln!(f, "{:width$}  {:.1}%", r.label, share * 100.0)?;
        }
        Ok(())
    }

    /// Each row's share of the queries with nothing relevant answered with nothing.
    fn write_no_relevant(&self, f: &mut fmt::Formatter<'_>, width: usize) -> fmt::Result {
        if self.no_relevant == 0 {
            return Ok(());
        }
        let held_out = if self.runs.iter().any(|r| r.fitted.is_some()) {
            ", those of a namespace by models fitted without it"
        } else {
            ""
        };
        writeln!(
            f,
            "\nQueries with nothing relevant ({}, in their namespace{held_out}) answered with \
             nothing",
            self.no_relevant
        )?;
        for r in &self.runs {
            let share = r.no_relevant_empty.unwrap_or_default();
            writeln!(f, "{:width$}  {:.1}%", r.label, share * 100.0)?;
        }
        Ok(())
    }

    /// Each mode's best setting scored out of sample, and what was chosen for what.
    fn write_out_of_sample(&self, f: &mut fmt::Formatter<'_>, width: usize) -> fmt::Result {
        let Some(first) = self.out_of_sample.first() else {
            return Ok(());
        };
        writeln!(
            f,
            "\nOut of sample: each mode's best setting by {} on other queries than those scored",
            first.metric
        )?;
        for o in &self.out_of_sample {
            let label = format!("mode={} ({})", o.mode, o.method);
            writeln!(
                f,
                "{label:width$}  {}",
                metrics(&o.summary, self.as_recalled)
            )?;
            // One line for a setting chosen for every held-out part (a mode with one setting
            // in the grid, say), else one per part.
            match o.chosen.split_first() {
                Some((first, rest))
                    if o.chosen.len() > 1 && rest.iter().all(|c| c.label == first.label) =>
                {
                    writeln!(f, "    each of {}: {}", o.chosen.len(), first.label)?;
                }
                _ => {
                    for c in &o.chosen {
                        writeln!(f, "    {}: {}", c.held_out, c.label)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Each row's Recall@10 per query category, when the queries have categories.
    fn write_categories(&self, f: &mut fmt::Formatter<'_>, width: usize) -> fmt::Result {
        let Some(first) = self.runs.first() else {
            return Ok(());
        };
        let categories: Vec<&String> = first.summary.by_category.keys().collect();
        if categories.is_empty() {
            return Ok(());
        }
        writeln!(f, "\nRecall@10 by category (queries)")?;
        write!(f, "{:width$}", "config")?;
        for c in &categories {
            let n = first.summary.by_category[*c].queries;
            write!(f, "  {:>10}", format!("{c} ({n})"))?;
        }
        writeln!(f)?;
        for r in &self.runs {
            write!(f, "{:width$}", r.label)?;
            for c in &categories {
                write!(f, "  {:>10.4}", r.summary.by_category[*c].mean.recall_10)?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// A row's metrics, in the columns of the table's header (latencies apart).
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
