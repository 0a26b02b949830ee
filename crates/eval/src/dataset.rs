//! Reading a benchmark in BEIR layout.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use oro_mem_core::memory::MAX_SUMMARY_BYTES;
use oro_mem_core::{Error, Result, Timestamp};
use serde::Deserialize;

use crate::metrics::Judged;

/// One corpus document.
#[derive(Clone, Debug, PartialEq)]
pub struct Doc {
    /// `_id`.
    pub id: String,
    /// `title`, empty when absent.
    pub title: String,
    /// `text`.
    pub text: String,
    /// `namespace`, if the dataset scopes retrieval.
    pub namespace: Option<String>,
    /// `created_at` (RFC 3339), if the dataset dates its documents.
    pub created_at: Option<Timestamp>,
    /// `session`; without one, documents of one namespace dated the same moment are one
    /// session (the turns of a LoCoMo session share its date and time), in corpus order.
    /// Undated documents have none.
    pub session: Option<String>,
    /// `tags`, as a memory's tags (an agent's store tags its memories).
    pub tags: Vec<String>,
    /// `type`, if the document names one (a memory type, or another kind, read as a lesson).
    pub kind: Option<String>,
}

impl Doc {
    /// The summary a memory of this document carries: its title, when it has one that a
    /// summary can hold (one line, at most [`MAX_SUMMARY_BYTES`]) and a text besides. The
    /// memory's content is then [`Doc::body`]; its embedding is made from the two as from
    /// [`Doc::content`].
    pub fn summary(&self) -> Option<&str> {
        let title = self.title.trim();
        (!title.is_empty()
            && !self.text.trim().is_empty()
            && title.len() <= MAX_SUMMARY_BYTES
            && !title.contains(['\n', '\r']))
        .then_some(title)
    }

    /// The content of a memory of this document: its text when the title is its summary
    /// ([`Doc::summary`]), else [`Doc::content`].
    pub fn body(&self) -> String {
        match self.summary() {
            Some(_) => self.text.clone(),
            None => self.content(),
        }
    }

    /// The text a memory holds for this document: the title, a blank line, then the text
    /// (either alone when the other is empty), the way BEIR's dense baselines join them.
    pub fn content(&self) -> String {
        match (self.title.trim().is_empty(), self.text.trim().is_empty()) {
            (true, _) => self.text.clone(),
            (false, true) => self.title.clone(),
            (false, false) => format!("{}\n\n{}", self.title, self.text),
        }
    }
}

/// One query.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalQuery {
    /// `_id`.
    pub id: String,
    /// `text`.
    pub text: String,
    /// `namespace`: when present the query searches only documents of that namespace.
    pub namespace: Option<String>,
    /// `metadata.category` as text (numbers are written out), if present.
    pub category: Option<String>,
    /// `metadata.no_relevant`: the corpus holds nothing this query needs, so the right answer
    /// is none.
    pub no_relevant: bool,
}

/// Relevance judgments of a split: query id → judged documents.
pub type Qrels = HashMap<String, Judged>;

/// A benchmark: corpus, the queries of one split that have judgments, and the judgments.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// The directory it was read from.
    pub dir: PathBuf,
    /// The qrels split (`test`, `train`, ...).
    pub split: String,
    /// Every corpus document, in file order.
    pub docs: Vec<Doc>,
    /// The queries with at least one relevant document in the split, in file order.
    pub queries: Vec<EvalQuery>,
    /// The queries marked `metadata.no_relevant` (the corpus holds nothing they need), in
    /// file order: as recalled, the right answer to each is none.
    pub no_relevant: Vec<EvalQuery>,
    /// The split's judgments.
    pub qrels: Qrels,
}

#[derive(Deserialize)]
struct RawDoc {
    #[serde(rename = "_id")]
    id: IdValue,
    #[serde(default)]
    title: String,
    #[serde(default)]
    text: String,
    namespace: Option<String>,
    created_at: Option<String>,
    session: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
}

#[derive(Deserialize)]
struct RawQuery {
    #[serde(rename = "_id")]
    id: IdValue,
    text: String,
    namespace: Option<String>,
    #[serde(default)]
    metadata: serde_json::Map<String, serde_json::Value>,
}

/// BEIR ids are strings, but some conversions write numbers.
#[derive(Deserialize)]
#[serde(untagged)]
enum IdValue {
    Text(String),
    Number(serde_json::Number),
}

impl IdValue {
    fn into_string(self) -> String {
        match self {
            IdValue::Text(s) => s,
            IdValue::Number(n) => n.to_string(),
        }
    }
}

impl Dataset {
    /// Reads `dir/corpus.jsonl`, `dir/queries.jsonl` and `dir/qrels/<split>.tsv`.
    ///
    /// Only queries with a relevant document in the split are kept among the
    /// [`queries`](Dataset::queries); those marked `metadata.no_relevant` are kept apart. A
    /// judgment may name a
    /// document the corpus lacks: it stays in the ideal ranking, as with pytrec_eval, so such
    /// queries can never score 1.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::InvalidInput`](oro_mem_core::ErrorKind::InvalidInput) naming the file and
    /// line of anything malformed: a missing file, bad JSON, a missing `_id` or `text`, a
    /// `created_at` that is not RFC 3339, a duplicate id, a qrels line without three columns
    /// or with a grade that is not a whole number, a judged query missing from
    /// `queries.jsonl`, or a query marked `no_relevant` that is judged relevant to a document.
    pub fn load(dir: impl AsRef<Path>, split: &str) -> Result<Dataset> {
        let dir = dir.as_ref();
        let docs = read_corpus(dir)?;
        let all_queries = read_queries(dir)?;
        let qrels_path = dir.join("qrels").join(format!("{split}.tsv"));
        let qrels = read_qrels(&qrels_path)?;
        let known: std::collections::HashSet<&str> =
            all_queries.iter().map(|q| q.id.as_str()).collect();
        let mut missing: Vec<&String> = qrels
            .keys()
            .filter(|q| !known.contains(q.as_str()))
            .collect();
        if !missing.is_empty() {
            missing.sort();
            return Err(Error::invalid_input(format!(
                "{}: {} judged queries are not in queries.jsonl (first: {:?})",
                qrels_path.display(),
                missing.len(),
                missing[0]
            )));
        }
        let judged = |q: &EvalQuery| qrels.get(&q.id).is_some_and(|j| j.values().any(|&g| g > 0));
        if let Some(q) = all_queries.iter().find(|q| q.no_relevant && judged(q)) {
            return Err(Error::invalid_input(format!(
                "{}: query {:?} is judged relevant to a document, but queries.jsonl marks it \
                 no_relevant",
                qrels_path.display(),
                q.id
            )));
        }
        let (queries, rest): (Vec<EvalQuery>, Vec<EvalQuery>) =
            all_queries.into_iter().partition(judged);
        Ok(Dataset {
            dir: dir.to_path_buf(),
            split: split.to_string(),
            docs,
            queries,
            no_relevant: rest.into_iter().filter(|q| q.no_relevant).collect(),
            qrels,
        })
    }

    /// The dataset's name: its directory's last component.
    pub fn name(&self) -> String {
        self.dir.file_name().map_or_else(
            || self.dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }
}

/// Reads `dir/corpus.jsonl`: every document, with a unique id and a title or a text.
fn read_corpus(dir: &Path) -> Result<Vec<Doc>> {
    let docs = read_jsonl(&dir.join("corpus.jsonl"), |raw: RawDoc, at| {
        let created_at = match raw.created_at {
            Some(t) => Some(
                t.parse::<Timestamp>()
                    .map_err(|e| Error::invalid_input(format!("{at}: created_at {t:?}: {e}")))?,
            ),
            None => None,
        };
        let session = raw.session.or_else(|| match (&raw.namespace, created_at) {
            (Some(ns), Some(at)) => Some(format!("{ns} {at}")),
            _ => None,
        });
        Ok(Doc {
            id: raw.id.into_string(),
            title: raw.title,
            text: raw.text,
            namespace: raw.namespace,
            created_at,
            session,
            tags: raw.tags,
            kind: raw.kind,
        })
    })?;
    check_unique(dir, "corpus.jsonl", docs.iter().map(|d| d.id.as_str()))?;
    if let Some(d) = docs.iter().find(|d| d.content().trim().is_empty()) {
        return Err(Error::invalid_input(format!(
            "{}: document {:?} has neither title nor text",
            dir.join("corpus.jsonl").display(),
            d.id
        )));
    }
    Ok(docs)
}

/// Reads `dir/queries.jsonl`: every query, with a unique id.
fn read_queries(dir: &Path) -> Result<Vec<EvalQuery>> {
    let all_queries = read_jsonl(&dir.join("queries.jsonl"), |raw: RawQuery, at| {
        let category = raw.metadata.get("category").map(|v| match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        let no_relevant = match raw.metadata.get("no_relevant") {
            None | Some(serde_json::Value::Null) => false,
            Some(serde_json::Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Error::invalid_input(format!(
                    "{at}: metadata.no_relevant {other}: expected true or false"
                )))
            }
        };
        Ok(EvalQuery {
            id: raw.id.into_string(),
            text: raw.text,
            namespace: raw.namespace,
            category,
            no_relevant,
        })
    })?;
    check_unique(
        dir,
        "queries.jsonl",
        all_queries.iter().map(|q| q.id.as_str()),
    )?;
    Ok(all_queries)
}

fn read_file(path: &Path) -> Result<String> {
    fs::read_to_string(path).map_err(|e| {
        Error::invalid_input(format!("cannot read {}: {e}", path.display())).with_source(e)
    })
}

pub(crate) fn read_jsonl<R, T>(
    path: &Path,
    mut convert: impl FnMut(R, &str) -> Result<T>,
) -> Result<Vec<T>>
where
    R: serde::de::DeserializeOwned,
{
    let text = read_file(path)?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{}:{}", path.display(), i + 1);
        let raw: R =
            serde_json::from_str(line).map_err(|e| Error::invalid_input(format!("{at}: {e}")))?;
        out.push(convert(raw, &at)?);
    }
    Ok(out)
}

fn check_unique<'a>(dir: &Path, file: &str, ids: impl Iterator<Item = &'a str>) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for id in ids {
        if !seen.insert(id) {
            return Err(Error::invalid_input(format!(
                "{}: duplicate _id {id:?}",
                dir.join(file).display()
            )));
        }
    }
    Ok(())
}

/// Reads a qrels TSV: `query-id corpus-id score` per line, an optional header.
fn read_qrels(path: &Path) -> Result<Qrels> {
    let text = read_file(path)?;
    let mut out = Qrels::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').map(str::trim).collect();
        if i == 0 && cols.first() == Some(&"query-id") {
            continue;
        }
        let at = format!("{}:{}", path.display(), i + 1);
        let [query, doc, grade] = cols[..] else {
            return Err(Error::invalid_input(format!(
                "{at}: expected 3 tab-separated columns (query-id, corpus-id, score), got {}",
                cols.len()
            )));
        };
        let grade: i64 = grade.parse().map_err(|_| {
            Error::invalid_input(format!("{at}: score {grade:?} is not a whole number"))
        })?;
        out.entry(query.to_string())
            .or_default()
            .insert(doc.to_string(), grade.max(0) as u32);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, corpus: &str, queries: &str, qrels: &str) {
        fs::create_dir_all(dir.join("qrels")).unwrap();
        fs::write(dir.join("corpus.jsonl"), corpus).unwrap();
        fs::write(dir.join("queries.jsonl"), queries).unwrap();
        fs::write(dir.join("qrels/test.tsv"), qrels).unwrap();
    }

    #[test]
    fn reads_beir_with_optional_fields() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            concat!(
                r#"{"_id": "d1", "title": "T", "text": "body", "namespace": "n1", "created_at": "2023-05-08T13:56:00Z"}"#,
                "\n",
                r#"{"_id": 2, "text": "only text"}"#,
                "\n\n"
            ),
            concat!(
                r#"{"_id": "q1", "text": "find", "namespace": "n1", "metadata": {"category": 2}}"#,
                "\n",
                r#"{"_id": "q2", "text": "unjudged"}"#,
                "\n",
                r#"{"_id": "q3", "text": "judged irrelevant only"}"#,
                "\n",
                r#"{"_id": "q4", "text": "nothing to find", "metadata": {"no_relevant": true}}"#,
            ),
            "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\tgone\t1\nq3\t2\t0\n",
        );
        let d = Dataset::load(dir.path(), "test").unwrap();
        assert_eq!(d.docs.len(), 2);
        assert_eq!(d.docs[0].content(), "T\n\nbody");
        assert_eq!(d.docs[1].id, "2");
        assert_eq!(d.docs[1].content(), "only text");
        assert_eq!(d.docs[0].namespace.as_deref(), Some("n1"));
        assert!(d.docs[0].created_at.is_some());
        let ids: Vec<_> = d.queries.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids, ["q1"]);
        assert_eq!(d.queries[0].category.as_deref(), Some("2"));
        assert_eq!(d.qrels["q1"].len(), 2);
        // Kept apart: a query marked as having nothing relevant (q2 and q3 are not marked).
        let none: Vec<_> = d.no_relevant.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(none, ["q4"]);
        assert!(d.no_relevant[0].no_relevant);
    }

    #[test]
    fn malformed_input_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let ok_q = r#"{"_id": "q1", "text": "x"}"#;
        let cases = [
            (
                r#"{"_id": "d1", "text": "a"}"#.to_string() + "\n{not json",
                ok_q,
                "q1\td1\t1",
                "corpus.jsonl:2",
            ),
            (
                r#"{"_id": "d1", "text": "a", "created_at": "yesterday"}"#.to_string(),
                ok_q,
                "q1\td1\t1",
                "created_at",
            ),
            (
                r#"{"_id": "d1", "text": "a"}"#.to_string(),
                ok_q,
                "q1\td1",
                "test.tsv:1: expected 3",
            ),
            (
                r#"{"_id": "d1", "text": "a"}"#.to_string(),
                ok_q,
                "q1\td1\tyes",
                "not a whole number",
            ),
            (
                r#"{"_id": "d1", "text": "a"}"#.to_string(),
                ok_q,
                "q9\td1\t1",
                "not in queries.jsonl",
            ),
            (
                r#"{"_id": "d1", "text": "a"}"#.to_string()
                    + "\n"
                    + r#"{"_id": "d1", "text": "b"}"#,
                ok_q,
                "q1\td1\t1",
                "duplicate _id",
            ),
            (
                r#"{"_id": "d1", "title": " ", "text": ""}"#.to_string(),
                ok_q,
                "q1\td1\t1",
                "neither title nor text",
            ),
            (
                r#"{"_id": "d1", "text": "a"}"#.to_string(),
                r#"{"_id": "q1", "text": "x", "metadata": {"no_relevant": "yes"}}"#,
                "q1\td1\t1",
                "queries.jsonl:1: metadata.no_relevant \"yes\": expected true or false",
            ),
            (
                r#"{"_id": "d1", "text": "a"}"#.to_string(),
                r#"{"_id": "q1", "text": "x", "metadata": {"no_relevant": true}}"#,
                "q1\td1\t1",
                "judged relevant to a document, but queries.jsonl marks it no_relevant",
            ),
        ];
        for (corpus, queries, qrels, expect) in cases {
            write(dir.path(), &corpus, queries, qrels);
            let err = Dataset::load(dir.path(), "test").unwrap_err().to_string();
            assert!(err.contains(expect), "{err:?} should contain {expect:?}");
        }
        write(
            dir.path(),
            r#"{"_id": "d1", "text": "a"}"#,
            ok_q,
            "q1\td1\t1",
        );
        Dataset::load(dir.path(), "test").unwrap();
        let err = Dataset::load(dir.path(), "dev").unwrap_err().to_string();
        assert!(err.contains("dev.tsv"), "{err}");
    }
}
